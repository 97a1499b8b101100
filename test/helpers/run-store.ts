import type { Insertable } from 'kysely'
import { Users } from '../../src/core/access/users.ts'
import { newId } from '../../src/core/ids.ts'
import { openStore, type Store, type StoreOptions } from '../../src/core/store/database.ts'
import type { RunsTable } from '../../src/core/store/schema.ts'

/**
 * The run engine's unit tests share this set-up (src/core/agents/worker.test.ts, run-state.test.ts):
 * an in-memory store (or the one `options` names) with a user who owns one agent, and runs of that
 * agent inserted as rows, in whatever state a test starts from.
 */
export interface RunStore {
  store: Store
  userId: string
  agentId: string
  /** Another user with an agent of their own (a neighbour whose runs must not wait behind ours). */
  owner(email: string): Promise<{ userId: string; agentId: string }>
  /** Inserts a run (queued, by the API, of the first agent unless the columns say otherwise); answers its id. */
  run(columns?: Partial<Insertable<RunsTable>>): Promise<string>
  /** A run's timeline entries, each as its place and status, in order. */
  entries(runId: string): Promise<Array<{ seq: number; status: string }>>
}

export async function openRunStore(
  email: string,
  options: StoreOptions = { memory: true },
): Promise<RunStore> {
  const store = await openStore(options)
  const owner = async (ownerEmail: string) => {
    const userId = (await new Users(store.db).create({ email: ownerEmail })).id
    const agentId = newId('agt')
    await store.db
      .insertInto('agents')
      .values({ id: agentId, user_id: userId, name: ownerEmail, current_version: 1 })
      .execute()
    return { userId, agentId }
  }
  const first = await owner(email)
  return {
    store,
    ...first,
    owner,
    async run(columns = {}) {
      const id = newId('run')
      await store.db
        .insertInto('runs')
        .values({
          id,
          user_id: first.userId,
          agent_id: first.agentId,
          agent_version: 1,
          started_by: 'api',
          inputs: '{}',
          status: 'queued',
          ...columns,
        })
        .execute()
      return id
    },
    entries: (runId) =>
      store.db
        .selectFrom('run_steps')
        .select(['seq', 'status'])
        .where('run_id', '=', runId)
        .orderBy('seq')
        .execute(),
  }
}
