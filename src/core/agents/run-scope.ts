import type { Integrations } from '../connections/integrations.ts'
import { AppError } from '../errors.ts'
import type { Db } from '../store/database.ts'
import type { ToolRegistry } from '../tools/catalog.ts'
import type { Agents } from './agents.ts'
import type { AgentDefinition } from './definition.ts'

/**
 * What a run token may act on (docs/security.md, "Run tokens"): only the integrations its agent
 * uses. An external agent declares them (`external.integrations`); a step agent's are those its
 * steps name. The agent version the run keeps decides, so saving the agent later neither widens nor
 * narrows a run already started. A refused call answers 403 and never reaches the platform.
 */
export class RunTokenScope {
  constructor(
    private readonly db: Db,
    private readonly agents: Agents,
    private readonly registry: ToolRegistry,
    private readonly integrations: Integrations,
  ) {}

  /** The ids and account names a run's agent names, as written in its definition. */
  async refs(runId: string): Promise<string[]> {
    const run = await this.db
      .selectFrom('runs')
      .select(['agent_id', 'agent_version'])
      .where('id', '=', runId)
      .executeTakeFirst()
    if (!run) return []
    return integrationsOf(await this.agents.definitionAt(run.agent_id, run.agent_version))
  }

  /**
   * The ids of the caller's integrations that the run's token may act on: those its agent names, read
   * by id and by name from their indexes, never all of the user's (issue 22, §7).
   */
  async integrationIds(runId: string, userId: string): Promise<Set<string>> {
    return this.integrations.idsNamed(userId, this.registry.platformIds(), await this.refs(runId))
  }

  /**
   * Refuses a tool call on an integration outside the run's scope. A call naming no integration, an
   * unknown tool or an unknown integration is left to the executor, which answers it as for an API key.
   */
  async check(runId: string, userId: string, toolId: string, integration: unknown): Promise<void> {
    const platform = this.registry.get(toolId)?.platform.id
    if (!platform || typeof integration !== 'string' || !integration) return
    let target: { id: string }
    try {
      target = await this.integrations.resolve(userId, platform, integration)
    } catch (err) {
      if (err instanceof AppError && (err.code === 'not_found' || err.code === 'invalid_input')) return
      throw err
    }
    if ((await this.integrationIds(runId, userId)).has(target.id)) return
    const refs = await this.refs(runId)
    throw new AppError(
      'forbidden',
      `this run's token acts only on the integrations its agent uses (${refs.length ? refs.join(', ') : 'none declared'}); ` +
        `${integration} is not one of them (an external agent lists them in external.integrations)`,
      {
        errors: [{ field: 'integration', message: `${integration} is not one of the agent's integrations` }],
      },
    )
  }
}

/** The integrations an agent definition uses. */
export function integrationsOf(def: AgentDefinition): string[] {
  return def.kind === 'external' ? (def.external?.integrations ?? []) : def.steps.map((s) => s.integration)
}
