import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, storedTokens, zendeskControl } from './helpers/stack.ts'

// Token refresh must never wait on the connection pool it reads through: the pool holds 10
// connections, and a refresh lock that held one of them while the refresh read through the others
// hung for ever once ten refreshes of different integrations ran at once (issue 9, §3.1).

const INTEGRATIONS = 40

describe.runIf(process.env.TEST_DATABASE_URL)('many integrations refreshing at once on PostgreSQL', () => {
  let stack: TestStack
  beforeAll(async () => {
    stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  })
  afterAll(async () => {
    await stack?.close()
  })

  it(`${INTEGRATIONS} integrations with expired tokens, called at once, all refresh, each exactly once`, async () => {
    const control = zendeskControl(stack)
    const run = Math.random().toString(36).slice(2, 8)
    const integrations: string[] = []
    for (let i = 0; i < INTEGRATIONS; i++) {
      const email = `refresher-${run}-${i}@acme.test`
      const created = await control.call('POST', '/accounts/acme/users', {
        name: `Refresher ${i}`,
        email,
        role: 'admin',
        password: 'pw',
      })
      expect(created.status).toBe(201)
      integrations.push((await connectZendesk(stack, { email, password: 'pw' })).integrationId!)
    }
    const { body: ticket } = await client(stack, stack.apiKey).run('zendesk.create_ticket', integrations[0], {
      subject: 'many refreshes',
      description: 'd',
    })
    const before = new Map<string, string>()
    for (const id of integrations) {
      const tokens = await storedTokens(stack, id)
      before.set(id, tokens.access_token)
      const expired = { ...tokens, issued_at: Date.now() - 86_400_000, expires_at: Date.now() - 1000 }
      await stack.services.integrations.storeCredentials(
        id,
        stack.services.credentials.seal(expired),
        new Date(expired.expires_at),
      )
    }
    await control.clearRequests()

    const results = await Promise.all(
      integrations.map((id) =>
        client(stack, stack.apiKey).run('zendesk.get_ticket', id, { ticket_id: ticket.output.id }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual(Array(INTEGRATIONS).fill(200))
    const tokenRequests = (await control.requests()).filter(
      (r) => r.method === 'POST' && r.path.endsWith('/oauth/tokens'),
    )
    expect(tokenRequests).toHaveLength(INTEGRATIONS)
    // Forty token requests for forty integrations, and every one of them holds a new token: each refreshed exactly once.
    for (const id of integrations) {
      const tokens = await storedTokens(stack, id)
      expect(tokens.expires_at! > Date.now()).toBe(true)
      expect(tokens.access_token).not.toBe(before.get(id))
    }
  })
})
