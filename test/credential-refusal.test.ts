import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from '../src/server/app.ts'
import { connectZendesk } from './helpers/connect.ts'
import { connectTrelloOAuth } from './helpers/connect-trello.ts'
import { client, zendeskControl } from './helpers/stack.ts'
import { trelloControl } from './helpers/trello.ts'

// A 401 never flags an integration on the caller's say-so: the run retries once with a refreshed
// credential when it can be refreshed, then confirms with the platform's own identify call on the
// stored credential, and only a refusal of that too flags it (docs/security.md; issue 9, §3.2, §3.3).

let stack: TestStack
beforeAll(async () => { stack = await startTestStack() })
afterAll(async () => { await stack?.close() })

const api = () => client(stack, stack.apiKey)
const status = async (integration: string) => (await api().get(`/v1/integrations/${integration}`)).body.status

// Each adds the caller's own bad token to an API Call: Trello answers 401 "invalid token".
const OAUTH1_BAD_TOKENS: Array<[string, Record<string, unknown>]> = [
  ['an oauth_token in the endpoint', { endpoint: '/1/members/me?oauth_token=x' }],
  ['an oauth_consumer_key in the endpoint', { endpoint: '/1/members/me?oauth_consumer_key=x' }],
  ['an oauth_token in query', { endpoint: '/1/members/me', query: { oauth_token: 'x' } }],
]
describe('a Trello integration connected with OAuth 1.0a', () => {
  it.each(OAUTH1_BAD_TOKENS)('stays active when an API Call with %s is refused', async (_name, input) => {
    const integration = (await connectTrelloOAuth(stack)).integrationId!
    const refused = await api().run('trello.api_call', integration, { method: 'GET', ...input })
    expect(refused.status, refused.text).toBe(200)
    expect(refused.body.output.status).toBe(401)
    expect(await status(integration)).toBe('active')
    // The identify call confirmed the stored credential, and the integration still works.
    const requests = await trelloControl(stack).requests()
    expect(requests.at(-1)).toMatchObject({ method: 'GET', path: '/trello/1/members/me', status: 200 })
    expect((await api().run('trello.get_boards', integration, {})).status).toBe(200)
  })
})

describe('a Zendesk integration whose access token the platform sees as expired', () => {
  it('refreshes and retries once instead of disconnecting, when the refresh token is still valid', async () => {
    const integration = (await connectZendesk(stack)).integrationId!
    const control = zendeskControl(stack)
    // Two days on at Zendesk: the one-day access token is dead there, the 30-day refresh token is not.
    expect((await control.call('POST', '/clock', { advance_ms: 2 * 86_400_000 })).status).toBe(200)
    await control.clearRequests()
    try {
      const { status: code, text } = await api().run('zendesk.create_ticket', integration, { subject: 'after two days', description: 'd' })
      expect(code, text).toBe(200)
      expect(await status(integration)).toBe('active')
      const requests = await control.requests()
      expect(requests.filter((r) => r.path.endsWith('/oauth/tokens'))).toHaveLength(1)
      expect(requests.filter((r) => r.status === 401)).toHaveLength(1)
    } finally {
      await control.call('POST', '/clock', { now: new Date().toISOString() })
    }
  })
})
