import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { connectTrelloOAuth } from './helpers/connect-trello.ts'
import { client, storedTokens, zendeskControl } from './helpers/stack.ts'

// Secrets never appear in logs, errors or API responses: run a whole session with logging on and
// look for every secret that passed through.
const logLines: string[] = []
const sink = new Writable({
  write(chunk, _enc, done) {
    logLines.push(String(chunk))
    done()
  },
})

let stack: TestStack
const bodies: string[] = []

beforeAll(async () => {
  stack = await startTestStack({ logDestination: sink })
})
afterAll(async () => {
  await stack?.close()
})

describe('secrets never reach logs, errors or responses', () => {
  it('a whole session leaves no secret behind', async () => {
    const result = await connectZendesk(stack)
    const integration = result.integrationId!
    const api = client(stack, stack.apiKey)
    const record = async (p: Promise<{ text: string }>) => bodies.push((await p).text)
    await record(api.get('/v1/integrations'))
    await record(api.get(`/v1/integrations/${integration}`))
    await record(api.run('zendesk.create_ticket', integration, { subject: 's', description: 'd' }))
    await record(
      api.run('zendesk.api_call', integration, { method: 'GET', endpoint: '/api/v2/users/me.json' }),
    )
    await record(api.run('zendesk.api_call', integration, { method: 'GET', endpoint: '/api/v2/../x' }))
    await record(api.run('zendesk.get_ticket', integration, { ticket_id: 987654 }))
    await zendeskControl(stack).fault({ status: 500, match: { path: '/api/v2/tickets' }, times: 5 })
    await record(api.run('zendesk.get_ticket', integration, { ticket_id: 1 }))
    await zendeskControl(stack).clearFaults()
    await record(api.call('GET', '/v1/me'))
    await record(api.run('zendesk.get_ticket', integration, { ticket_id: 'x' }))

    const tokens = await storedTokens(stack, integration)
    const callback = new URL(result.browser.visited.find((u) => u.includes('/oauth/callback'))!)
    const start = result.browser.visited.find((u) => u.includes('/oauth/start/'))!
    const secrets = {
      apiKey: stack.apiKey,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token!,
      clientSecret: 'switchyard-sandbox-secret',
      authorizationCode: callback.searchParams.get('code')!,
      state: callback.searchParams.get('state')!,
      connectToken: start.split('/oauth/start/')[1],
      encryptionKey: '11'.repeat(32),
    }
    expect(logLines.length).toBeGreaterThan(5)
    const haystacks = { logs: logLines.join('\n'), responses: bodies.join('\n') }
    for (const [where, text] of Object.entries(haystacks)) {
      for (const [name, secret] of Object.entries(secrets)) {
        expect(secret?.length, name).toBeGreaterThan(8)
        expect(text.includes(secret), `${name} found in ${where}`).toBe(false)
      }
    }
  })

  it("Trello's OAuth 1.0a callback (oauth_token, oauth_verifier) stays out of the access log", async () => {
    const result = await connectTrelloOAuth(stack)
    expect(result.integrationId).toBeDefined()
    const callback = new URL(result.browser.visited.find((u) => u.includes('/oauth/callback'))!)
    const secrets = ['oauth_token', 'oauth_verifier', 'state'].map((name) => callback.searchParams.get(name)!)
    const logs = logLines.join('\n')
    expect(logs).toContain('/oauth/callback?')
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8)
      expect(logs.includes(secret), `${secret} found in the logs`).toBe(false)
    }
  })
})
