import type { User, Users } from '../access/users.ts'
import { TtlCache } from '../ttl-cache.ts'
import type { Agents } from './agents.ts'
import type { ExternalDelivery } from './external.ts'
import type { RunState } from './run-state.ts'
import type { RunRow } from './runs.ts'
import { errorOf, type StepRunner } from './step-runner.ts'
import type { Lease, RunHandler } from './worker.ts'
import type { ModelRunner } from '../models/runner.ts'

const USER_TTL_MS = 5_000

/** What a claimed run does: its agent's steps, or a delivery to the external agent. */
export class AgentRunHandler implements RunHandler {
  /** A run acts as its owner; a plan or role change reaches new runs within the time the API key cache allows too. */
  private readonly owners = new TtlCache<User>(USER_TTL_MS)

  constructor(
    private readonly agents: Agents,
    private readonly users: Users,
    private readonly state: RunState,
    private readonly steps: StepRunner,
    private readonly external: ExternalDelivery,
    private readonly models?: ModelRunner,
  ) {}

  private async user(id: string): Promise<User | undefined> {
    const cached = this.owners.get(id)
    if (cached) return cached
    const user = await this.users.get(id)
    if (user) this.owners.set(id, user)
    return user
  }

  async execute(run: RunRow, lease: Lease): Promise<void> {
    try {
      if (run.cancel_requested) {
        await this.state.finish(run.id, lease, 'cancelled', {
          error: { code: 'cancelled', message: 'cancelled by a person' },
        })
        return
      }
      const def = await this.agents.definitionAt(run.agent_id, run.agent_version)
      const user = await this.user(run.user_id)
      if (!user) {
        await this.state.finish(run.id, lease, 'failed', {
          error: { code: 'not_found', message: "the agent's owner no longer exists" },
        })
        return
      }
      if (def.kind === 'external') await this.external.execute(run, def, lease)
      else if (def.kind === 'model' && this.models) await this.models.execute(run, def, user, lease)
      else await this.steps.execute(run, def, user, lease)
    } catch (err) {
      // Nothing a run meets may leave it running forever: an unexpected failure ends it, recorded.
      await this.state.finish(run.id, lease, 'failed', { error: errorOf(err) })
      throw err
    }
  }
}
