import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { connectTrelloOAuth } from './helpers/connect-trello.ts'
import { client, zendeskControl } from './helpers/stack.ts'
import { TRELLO, trelloControl } from './helpers/trello.ts'

// A 401 never flags an integration on the caller's say-so: the run retries once with a refreshed
// credential when it can be refreshed, then confirms with the platform's own identify call on the
// stored credential, and only a refusal of that too flags it (docs/security.md; issue 9, §3.2, §3.3).

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => {
  await stack?.close()
})

const api = () => client(stack, stack.apiKey)
const status = async (integration: string) => (await api().get(`/v1/integrations/${integration}`)).body.status

describe('a 401 on requests that say nothing of the token', () => {
  it('one refused request: the run refreshes, retries once and succeeds; the integration stays active', async () => {
    const integration = (await connectZendesk(stack)).integrationId!
    const control = zendeskControl(stack)
    await control.clearRequests()
    await control.fault({ status: 401, match: { path: '/api/v2/tickets.json' }, times: 1 })
    try {
      const { status: code, text } = await api().run('zendesk.create_ticket', integration, {
        subject: 'refused once',
        description: 'd',
      })
      expect(code, text).toBe(200)
      expect(await status(integration)).toBe('active')
      const requests = await control.requests()
      expect(requests.filter((r) => r.path.endsWith('/oauth/tokens'))).toHaveLength(1)
      expect(requests.filter((r) => r.path.endsWith('/api/v2/tickets.json')).map((r) => r.status)).toEqual([
        401, 201,
      ])
    } finally {
      await control.clearFaults()
    }
  })

  it('a path always refused while the identify call succeeds: the run fails, the integration stays active', async () => {
    const integration = (await connectZendesk(stack)).integrationId!
    const control = zendeskControl(stack)
    await control.fault({ status: 401, match: { path: '/api/v2/tickets/' } })
    try {
      const refused = await api().run('zendesk.api_call', integration, {
        method: 'GET',
        endpoint: '/api/v2/tickets/1.json',
      })
      expect(refused.status, refused.text).toBe(200)
      expect(refused.body.output.status).toBe(401)
      expect(await status(integration)).toBe('active')
      // Refresh and retry once, then the identify call on the stored credential, which succeeds.
      const paths = (await control.requests())
        .slice(-4)
        .map((r) => `${r.status} ${r.path.replace(/^.*\/api\/v2/, '').replace(/^.*\/oauth/, '/oauth')}`)
      expect(paths).toEqual([
        '401 /tickets/1.json',
        '201 /oauth/tokens',
        '401 /tickets/1.json',
        '200 /users/me.json',
      ])
    } finally {
      await control.clearFaults()
    }
    expect(
      (await api().run('zendesk.create_ticket', integration, { subject: 'still works', description: 'd' }))
        .status,
    ).toBe(200)
  })
})

describe('a credential that cannot be refreshed (Trello, OAuth 1.0a)', () => {
  it('a path Trello refuses with "invalid token" while the identify call succeeds: the integration stays active', async () => {
    const integration = (await connectTrelloOAuth(stack)).integrationId!
    const control = trelloControl(stack)
    await control.fault({ status: 401, match: { path: `/1/boards/${TRELLO.board.id}` } })
    try {
      const refused = await api().run('trello.api_call', integration, {
        method: 'GET',
        endpoint: `/1/boards/${TRELLO.board.id}`,
      })
      expect(refused.status, refused.text).toBe(200)
      expect(refused.body.output).toMatchObject({ status: 401, body: 'invalid token' })
      expect(await status(integration)).toBe('active')
      // No refresh to try: straight to the identify call on the stored credential, which succeeds.
      expect((await control.requests()).slice(-2).map((r) => `${r.status} ${r.path}`)).toEqual([
        `401 /trello/1/boards/${TRELLO.board.id}`,
        '200 /trello/1/members/me',
      ])
    } finally {
      await control.clearFaults()
    }
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
      const { status: code, text } = await api().run('zendesk.create_ticket', integration, {
        subject: 'after two days',
        description: 'd',
      })
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
