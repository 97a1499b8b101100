import { scratchDatabase } from './scratch-database.ts'
import { startTestStack, type TestStack } from './test-stack.ts'
import { connectTrelloWithToken, trelloControl } from './trello.ts'
import { client } from './stack.ts'

export interface FreshStore {
  /** undefined: a new in-memory PGlite (or a data directory the caller makes). */
  databaseUrl: string | undefined
  drop(): Promise<void>
}

/**
 * A PostgreSQL database of its own, made on the TEST_DATABASE_URL server. Every process on a
 * database executes any queued run in it, so suites sharing one would take each other's runs and
 * execute them against the wrong sandbox.
 */
export async function freshPostgres(tag: string): Promise<FreshStore> {
  const base = process.env.TEST_DATABASE_URL
  if (!base) throw new Error('TEST_DATABASE_URL is not set')
  const scratch = await scratchDatabase(base, `engine_${tag}`)
  return { databaseUrl: scratch.url, drop: () => scratch.drop().catch(() => undefined) }
}

/** Every engine guarantee is checked on the embedded store and, when TEST_DATABASE_URL is set, on PostgreSQL. */
export const STORES: Array<{ name: string; open: (tag: string) => Promise<FreshStore> }> = [
  { name: 'PGlite', open: async () => ({ databaseUrl: undefined, drop: async () => {} }) },
  ...(process.env.TEST_DATABASE_URL ? [{ name: 'PostgreSQL', open: freshPostgres }] : []),
]

/** Short waits between a step's attempts and between deliveries, so retries are seen within a test. */
export const FAST_BACKOFF = { stepMs: [50, 50, 50], deliveryMs: [50, 50, 50] }

export interface EngineStack {
  stack: TestStack
  close(): Promise<void>
  api: ReturnType<typeof client>
  control: ReturnType<typeof trelloControl>
  integrationId: string
  /** A list of the seeded board that each suite fills with its own cards. */
  listId: string
}

/** A test stack with Trello connected for its first user. */
export async function startEngineStack(
  store: FreshStore,
  options: Parameters<typeof startTestStack>[0] = {},
): Promise<EngineStack> {
  // The store's database is already this stack's own: the stack makes no second one inside it.
  const stack = await startTestStack({
    databaseUrl: store.databaseUrl,
    sharedDatabase: store.databaseUrl !== undefined,
    backoff: FAST_BACKOFF,
    ...options,
  })
  const api = client(stack, stack.apiKey)
  const integrationId = await connectTrelloWithToken(stack)
  const boards = await api.run('trello.get_boards', integrationId, {})
  if (boards.status !== 200) throw new Error(`get_boards: ${boards.status} ${boards.text}`)
  const close = async () => {
    await stack.close()
    await store.drop()
  }
  return {
    stack,
    close,
    api,
    control: trelloControl(stack),
    integrationId,
    listId: boards.body.output.boards[0].lists[0].id,
  }
}

/** Polls a run until `done` holds for it, or fails with the last state seen once the deadline passes. */
export async function waitForRunState(
  api: ReturnType<typeof client>,
  runId: string,
  done: (run: any) => boolean,
  timeoutMs = 20_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs
  let last: any
  while (Date.now() < deadline) {
    const res = await api.get(`/v1/runs/${runId}`)
    if (res.status !== 200) throw new Error(`GET run ${runId}: ${res.status} ${res.text}`)
    last = res.body
    if (done(last)) return last
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(
    `run ${runId} did not reach the awaited state in ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`,
  )
}

export const isFinished = (run: any) => ['succeeded', 'failed', 'cancelled'].includes(run.status)
