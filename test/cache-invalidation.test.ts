import { describe, expect, it } from 'vitest'
import { type TestStack, twoInstances } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'
import { TRELLO, trelloControl } from './helpers/trello.ts'

// Two instances on one PostgreSQL cache API keys and integrations in process. Their caches are
// stretched to ten minutes here, so an instance that drops a deleted key or a disconnected
// integration can only have learnt of it from the other instance's change notice.
const TEN_MINUTES = 600_000
const NOTICE_DEADLINE_MS = 20_000

async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + NOTICE_DEADLINE_MS
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return false
}

describe.runIf(process.env.TEST_DATABASE_URL)('cache invalidation across instances on PostgreSQL', () => {
  let a: TestStack
  let b: TestStack
  twoInstances(
    (first, second) => {
      a = first
      b = second
    },
    { first: { cacheTtlMs: TEN_MINUTES }, second: { cacheTtlMs: TEN_MINUTES } },
  )

  it('an API key deleted on one instance stops working on the other', async () => {
    const created = await client(a, a.apiKey).post('/v1/api-keys', { name: 'short-lived' })
    const key = created.body.key as string
    expect((await client(b, key).get('/v1/me')).status).toBe(200) // now cached by b
    expect((await client(a, a.apiKey).delete(`/v1/api-keys/${created.body.id}`)).status).toBe(204)
    expect(await eventually(async () => (await client(b, key).get('/v1/me')).status === 401)).toBe(true)
  })

  it('an integration disconnected on one instance is refused on the other', async () => {
    const token = await trelloControl(a).mintToken('ada')
    const integration = (
      await client(a, a.apiKey).post('/v1/integrations', {
        platform: 'trello',
        credentials: { key: TRELLO.app.key, token },
      })
    ).body.id as string
    const run = () => client(b, a.apiKey).run('trello.get_boards', integration, {})
    expect((await run()).status).toBe(200) // now cached by b
    expect((await client(a, a.apiKey).post(`/v1/integrations/${integration}/disconnect`)).status).toBe(200)
    expect(await eventually(async () => (await run()).status === 409)).toBe(true)
  })
})
