import { startTestStack, type TestStack } from '../../src/server/app.ts'
import { connectTrelloWithToken, trelloControl } from './trello.ts'
import { client } from './stack.ts'

/** Every engine guarantee is checked on the embedded store and, when TEST_DATABASE_URL is set, on PostgreSQL. */
export const STORES: Array<{ name: string; databaseUrl: string | undefined }> = [
  { name: 'PGlite', databaseUrl: undefined },
  ...(process.env.TEST_DATABASE_URL ? [{ name: 'PostgreSQL', databaseUrl: process.env.TEST_DATABASE_URL }] : []),
]

/** Short waits between a step's attempts and between deliveries, so retries are seen within a test. */
export const FAST_BACKOFF = { stepMs: [50, 50, 50], deliveryMs: [50, 50, 50] }

export interface EngineStack {
  stack: TestStack
  api: ReturnType<typeof client>
  control: ReturnType<typeof trelloControl>
  integrationId: string
  /** A list of the seeded board that each suite fills with its own cards. */
  listId: string
}

/** A test stack with Trello connected for its first user. */
export async function startEngineStack(databaseUrl: string | undefined, options: Parameters<typeof startTestStack>[0] = {}): Promise<EngineStack> {
  const stack = await startTestStack({ databaseUrl, backoff: FAST_BACKOFF, ...options })
  const api = client(stack, stack.apiKey)
  const integrationId = await connectTrelloWithToken(stack)
  const boards = await api.run('trello.get_boards', integrationId, {})
  if (boards.status !== 200) throw new Error(`get_boards: ${boards.status} ${boards.text}`)
  return { stack, api, control: trelloControl(stack), integrationId, listId: boards.body.output.boards[0].lists[0].id }
}

/** Polls a run until `done` holds for it, or fails with the last state seen once the deadline passes. */
export async function waitForRunState(api: ReturnType<typeof client>, runId: string, done: (run: any) => boolean, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs
  let last: any
  while (Date.now() < deadline) {
    const res = await api.get(`/v1/runs/${runId}`)
    if (res.status !== 200) throw new Error(`GET run ${runId}: ${res.status} ${res.text}`)
    last = res.body
    if (done(last)) return last
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`run ${runId} did not reach the awaited state in ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`)
}

export const isFinished = (run: any) => ['succeeded', 'failed', 'cancelled'].includes(run.status)
