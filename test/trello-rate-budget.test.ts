import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack, twoInstances } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'
import { TRELLO, trelloControl } from './helpers/trello.ts'

// One rate budget per token: every request on a token draws on it, across agents and processes,
// so agents sharing a token never see Trello's 429 (100 requests per 10 s per token).
const AGENTS = 6
const REQUESTS_PER_AGENT = 50

const WINDOW_MS = 10_000

async function sandboxTokenLimitIsEnforced(stack: TestStack, token: string): Promise<boolean> {
  // Control: the sandbox does refuse a token's 101st request in a window, so zero 429s below
  // means something. The sandbox's windows are fixed, so a burst may straddle a boundary: keep
  // sending until one is refused. 201 requests within two windows must overflow one of them.
  const auth = { authorization: `OAuth oauth_consumer_key="${TRELLO.app.key}", oauth_token="${token}"` }
  for (let sent = 0; sent < 250; sent += 50) {
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${stack.sandboxUrl}/trello/1/members/me`, { headers: auth }).then((r) => r.status),
      ),
    )
    if (statuses.includes(429)) {
      // The control drew on the app key's window too; start the agents on fresh windows.
      await trelloControl(stack).advanceClock(WINDOW_MS)
      return true
    }
  }
  return false
}

async function runAgents(stacks: TestStack[], integration: string, ownerKeys: string[]): Promise<number[]> {
  const statuses: number[] = []
  await Promise.all(
    ownerKeys.map(async (apiKey, i) => {
      const api = client(stacks[i % stacks.length], apiKey)
      for (let n = 0; n < REQUESTS_PER_AGENT; n++) {
        const { status } = await api.run('trello.get_card', integration, { card_id: TRELLO.cards.api.id })
        statuses.push(status)
      }
    }),
  )
  return statuses
}

async function setup(stack: TestStack) {
  const token = await trelloControl(stack).mintToken('ada')
  const created = await client(stack, stack.apiKey).post('/v1/integrations', {
    platform: 'trello',
    credentials: { key: TRELLO.app.key, token },
  })
  // Each agent calls with its own API key of the same user: agents are told apart by key.
  const keys = [stack.apiKey]
  for (let i = 1; i < AGENTS; i++)
    keys.push((await client(stack, stack.apiKey).post('/v1/api-keys', { name: `agent ${i}` })).body.key)
  return { integration: created.body.id as string, keys }
}

describe('one rate budget per token', () => {
  let stack: TestStack
  beforeAll(async () => {
    stack = await startTestStack()
  })
  afterAll(async () => {
    await stack?.close()
  })

  it(`${AGENTS * REQUESTS_PER_AGENT} requests from ${AGENTS} concurrent agents on one token finish with zero 429s`, async () => {
    expect(await sandboxTokenLimitIsEnforced(stack, await trelloControl(stack).mintToken('grace'))).toBe(true)
    const { integration, keys } = await setup(stack)
    await trelloControl(stack).clearRequests()
    const statuses = await runAgents([stack], integration, keys)
    expect(statuses.filter((s) => s !== 200)).toEqual([])
    const log = await trelloControl(stack).requests()
    expect(log.filter((r) => r.status === 429)).toEqual([])
    expect(log.filter((r) => r.path.includes('/1/cards/')).length).toBe(AGENTS * REQUESTS_PER_AGENT)
  }, 90_000)
})

describe.runIf(process.env.TEST_DATABASE_URL)(
  'one rate budget per token, across two processes on PostgreSQL',
  () => {
    let a: TestStack
    let b: TestStack
    twoInstances((first, second) => {
      a = first
      b = second
    })

    it('agents split over two service instances still see zero 429s', async () => {
      const { integration, keys } = await setup(a)
      await trelloControl(a).clearRequests()
      const statuses = await runAgents([a, b], integration, keys)
      expect(statuses.filter((s) => s !== 200)).toEqual([])
      expect((await trelloControl(a).requests()).filter((r) => r.status === 429)).toEqual([])
    }, 90_000)
  },
)
