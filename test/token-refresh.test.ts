import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack, twoInstances } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, storedTokens, zendeskControl } from './helpers/stack.ts'

// Token refresh: single-flight per integration in a process, a database lock across processes,
// storage re-read before an integration is marked broken, and refresh before expiry.

async function expireStoredToken(
  stack: TestStack,
  integrationId: string,
  patch: Record<string, unknown> = {},
) {
  const tokens = await storedTokens(stack, integrationId)
  const next = { ...tokens, issued_at: Date.now() - 86_400_000, expires_at: Date.now() - 1000, ...patch }
  await stack.services.integrations.storeCredentials(
    integrationId,
    stack.services.credentials.seal(next),
    new Date(next.expires_at),
  )
}

async function ticketId(stack: TestStack, integration: string): Promise<number> {
  const { body } = await client(stack, stack.apiKey).run('zendesk.create_ticket', integration, {
    subject: 'refresh',
    description: 'd',
  })
  return body.output.id
}

const tokenRequests = async (stack: TestStack) =>
  (await zendeskControl(stack).requests()).filter(
    (r) => r.method === 'POST' && r.path.endsWith('/oauth/tokens'),
  )

const databases: Array<[string, string | undefined]> = [['pglite', undefined]]
if (process.env.TEST_DATABASE_URL) databases.push(['postgres', process.env.TEST_DATABASE_URL])

describe.each(databases)('token refresh on %s', (_name, databaseUrl) => {
  let stack: TestStack
  beforeAll(async () => {
    stack = await startTestStack({ databaseUrl })
  })
  afterAll(async () => {
    await stack?.close()
  })

  it('50 concurrent calls on an expired token make exactly 1 token request', async () => {
    const integration = (await connectZendesk(stack)).integrationId!
    const id = await ticketId(stack, integration)
    await expireStoredToken(stack, integration)
    await zendeskControl(stack).clearRequests()

    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        client(stack, stack.apiKey).run('zendesk.get_ticket', integration, { ticket_id: id }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200))
    expect(await tokenRequests(stack)).toHaveLength(1)
    // The new token is stored, so the next call does not refresh again.
    await client(stack, stack.apiKey).run('zendesk.get_ticket', integration, { ticket_id: id })
    expect(await tokenRequests(stack)).toHaveLength(1)
  })

  it('refreshes before expiry, not after a 401', async () => {
    const integration = (await connectZendesk(stack)).integrationId!
    const id = await ticketId(stack, integration)
    // Two minutes left: inside the refresh margin, still valid at the platform.
    await expireStoredToken(stack, integration, { expires_at: Date.now() + 120_000 })
    await zendeskControl(stack).clearRequests()
    const { status } = await client(stack, stack.apiKey).run('zendesk.get_ticket', integration, {
      ticket_id: id,
    })
    expect(status).toBe(200)
    const requests = await zendeskControl(stack).requests()
    expect(requests.filter((r) => r.path.endsWith('/oauth/tokens'))).toHaveLength(1)
    expect(requests.filter((r) => r.status === 401)).toEqual([])
  })

  it('a refused refresh token marks the integration as needing reconnection, with the rule that applies', async () => {
    const integration = (await connectZendesk(stack, { email: 'agent@acme.test' })).integrationId!
    await expireStoredToken(stack, integration, { refresh_token: 'not-a-real-refresh-token' })
    const { status, body } = await client(stack, stack.apiKey).run('zendesk.get_ticket', integration, {
      ticket_id: 1,
    })
    expect(status).toBe(409)
    expect(body.code).toBe('reconnect_required')
    expect(body.troubleshooting).toHaveLength(3)
    expect(body.applies).toEqual([2])
    const view = await client(stack, stack.apiKey).get(`/v1/integrations/${integration}`)
    expect(view.body.status).toBe('needs_reconnection')
    // A fresh OAuth flow through reconnect brings it back.
    await connectZendesk(stack, { integrationId: integration, email: 'agent@acme.test' })
    expect((await client(stack, stack.apiKey).get(`/v1/integrations/${integration}`)).body.status).toBe(
      'active',
    )
  })

  it('storage is re-read under the lock: a refresh done elsewhere is used, not repeated', async () => {
    const integration = (await connectZendesk(stack)).integrationId!
    const id = await ticketId(stack, integration)
    const row = await stack.services.integrations.get(stack.userId, integration)
    await expireStoredToken(stack, integration)
    const stale = await stack.services.integrations.get(stack.userId, integration)
    // Another process refreshed meanwhile: storage now holds the fresh token again.
    await stack.services.store.db
      .updateTable('integrations')
      .set({ credentials: row.credentials })
      .where('id', '=', integration)
      .execute()
    await zendeskControl(stack).clearRequests()
    const runtime = stack.services.runtimes.get('zendesk')!
    const current = await stack.services.credentials.current(stale, runtime)
    expect(current).toEqual(stack.services.credentials.open(row.credentials!))
    expect(await tokenRequests(stack)).toHaveLength(0)
    expect(
      (await client(stack, stack.apiKey).run('zendesk.get_ticket', integration, { ticket_id: id })).status,
    ).toBe(200)
  })
})

describe.runIf(process.env.TEST_DATABASE_URL)('token refresh across processes sharing PostgreSQL', () => {
  let a: TestStack
  let b: TestStack
  twoInstances((first, second) => {
    a = first
    b = second
  })

  it('two service instances refreshing the same integration at once make 1 token request', async () => {
    const integration = (await connectZendesk(a)).integrationId!
    const id = await ticketId(a, integration)
    await expireStoredToken(a, integration)
    await zendeskControl(a).clearRequests()
    const calls = Array.from({ length: 40 }, (_, i) =>
      client(i % 2 ? a : b, a.apiKey).run('zendesk.get_ticket', integration, { ticket_id: id }),
    )
    const results = await Promise.all(calls)
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200))
    expect(await tokenRequests(a)).toHaveLength(1)
  })
})
