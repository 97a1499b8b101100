import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { BrowserLike } from './helpers/browser-like.ts'
import { completeConnect, connectZendesk } from './helpers/connect.ts'
import { client, storedTokens, zendeskControl } from './helpers/stack.ts'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => {
  await stack?.close()
})

describe('OAuth 2.0 connect flow, driven end to end over HTTP', () => {
  it('connects a Zendesk account and lists it under subdomain plus the authorizing user', async () => {
    const result = await connectZendesk(stack, { subdomain: 'https://acme.zendesk.com' })
    expect(result.landing.pathname).toBe('/integrations')
    expect(result.integrationId).toBeDefined()
    const api = client(stack, stack.apiKey)
    const { status, body } = await api.get(`/v1/integrations/${result.integrationId}`)
    expect(status).toBe(200)
    expect(body).toMatchObject({
      platform: 'zendesk',
      account_name: 'Ada Admin (acme)',
      status: 'active',
      fields: { subdomain: 'acme' },
    })
    expect(body).not.toHaveProperty('credentials')
    // PKCE S256 and the exact redirect URI went to the authorize page.
    const authorize = new URL(result.browser.visited.find((u) => u.includes('/oauth/authorizations/new'))!)
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${stack.url}/oauth/callback`)
    expect(authorize.searchParams.get('state')!.length).toBeGreaterThanOrEqual(22) // ≥128 bits in base64url
  })

  it('connecting the same external account again updates that integration, not a second one', async () => {
    const user = await stack.createUser()
    const as = { url: stack.url, apiKey: user.apiKey }
    const first = await connectZendesk(as)
    const second = await connectZendesk(as)
    expect(second.integrationId).toBe(first.integrationId)
    const { body } = await client(stack, user.apiKey).get('/v1/integrations')
    expect(body.integrations).toHaveLength(1)
  })

  it('holds one integration per external account: another user of the same account adds one', async () => {
    const user = await stack.createUser()
    const as = { url: stack.url, apiKey: user.apiKey }
    await connectZendesk(as)
    await connectZendesk(as, { email: 'agent@acme.test' })
    const { body } = await client(stack, user.apiKey).get('/v1/integrations')
    expect(body.integrations.map((i: any) => i.account_name).sort()).toEqual([
      'Ada Admin (acme)',
      'Alan Agent (acme)',
    ])
  })

  it('reconnect runs a fresh OAuth flow and keeps the integration', async () => {
    const user = await stack.createUser()
    const as = { url: stack.url, apiKey: user.apiKey }
    const first = await connectZendesk(as)
    await client(stack, user.apiKey).post(`/v1/integrations/${first.integrationId}/disconnect`)
    const again = await connectZendesk(as, { integrationId: first.integrationId })
    expect(again.integrationId).toBe(first.integrationId)
    const { body } = await client(stack, user.apiKey).get(`/v1/integrations/${first.integrationId}`)
    expect(body.status).toBe('active')
  })

  it('reconnect refuses to swap in another account, and leaves the integration as it was', async () => {
    const user = await stack.createUser()
    const as = { url: stack.url, apiKey: user.apiKey }
    const first = await connectZendesk(as)
    const wrong = await connectZendesk(as, { integrationId: first.integrationId, email: 'agent@acme.test' })
    expect(wrong.integrationId).toBeUndefined()
    expect(wrong.landing.searchParams.get('code')).toBe('connect_failed')
    expect(wrong.landing.searchParams.get('error')).toMatch(
      /are for Alan Agent \(acme\), but this integration is for Ada Admin \(acme\)/,
    )
    const { body } = await client(stack, user.apiKey).get('/v1/integrations')
    expect(body.integrations.map((i: any) => [i.account_name, i.status])).toEqual([
      ['Ada Admin (acme)', 'active'],
    ])
  })

  it('Deny says that nothing was connected, with no troubleshooting rules (it is a choice, not a fault)', async () => {
    const result = await connectZendesk(stack, { decision: 'deny' })
    expect(result.integrationId).toBeUndefined()
    expect(result.landing.searchParams.get('code')).toBe('connect_failed')
    expect(result.landing.searchParams.get('error')).toBe(
      "You chose Deny on Zendesk's authorization page, so nothing was connected. Connect again and choose Allow to add the account.",
    )
    expect(result.landing.searchParams.has('troubleshooting')).toBe(false)
  })

  it('an end-user account is refused and the role rule is named as the one that applies', async () => {
    const result = await connectZendesk(stack, { email: 'customer@acme.test' })
    expect(result.integrationId).toBeUndefined()
    expect(result.landing.searchParams.get('code')).toBe('connect_failed')
    expect(JSON.parse(result.landing.searchParams.get('applies')!)).toEqual([1])
  })

  it('state is single-use: replaying the callback fails', async () => {
    const result = await connectZendesk(stack)
    const callback = result.browser.visited.find((u) => u.includes('/oauth/callback'))!
    const replay = await result.browser.follow(await result.browser.get(callback), callback)
    const landing = new URL(replay.url)
    expect(landing.searchParams.get('code')).toBe('connect_failed')
    expect(landing.searchParams.get('error')).toMatch(/expired or was already used/)
  })

  it('state is bound to the browser: a callback from another browser fails', async () => {
    const start = await client(stack, stack.apiKey).post('/v1/integrations/connect', {
      platform: 'zendesk',
      fields: { subdomain: 'acme' },
    })
    const victim = new BrowserLike()
    // The victim's browser opens the link, gets the binding cookie and continues; the attacker finishes the flow.
    const opened = await victim.follow(await victim.get(start.body.connect_url), start.body.connect_url)
    const continued = await victim.post(`${opened.url}/continue`, {})
    expect(continued.status).toBe(303)
    const attacker = new BrowserLike()
    const result = await completeConnect(continued.headers.get('location')!, { browser: attacker })
    expect(result.landing.searchParams.get('code')).toBe('connect_failed')
    expect(result.landing.searchParams.get('error')).toMatch(/another browser/)
  })

  it('the connect URL binds to the first browser that opens it; another browser is refused', async () => {
    const start = await client(stack, stack.apiKey).post('/v1/integrations/connect', {
      platform: 'zendesk',
      fields: { subdomain: 'acme' },
    })
    const first = new BrowserLike()
    expect((await first.get(start.body.connect_url)).status).toBe(200)
    expect((await first.get(start.body.connect_url)).status).toBe(200) // a reload shows the same page
    const other = new BrowserLike()
    const second = await other.follow(await other.get(start.body.connect_url), start.body.connect_url)
    expect(new URL(second.url).searchParams.get('code')).toBe('connect_failed')
    expect(new URL(second.url).searchParams.get('error')).toMatch(/another browser/)
    // Nor can the other browser answer the first one's page.
    const posted = await other.post(`${start.body.connect_url}/continue`, {})
    expect(new URL(posted.headers.get('location')!, stack.url).searchParams.get('error')).toMatch(
      /another browser/,
    )
  })

  it.each([
    [{ platform: 'zendesk', fields: { subdomain: 'acme.example.com' } }, 'fields.subdomain'],
    [{ platform: 'zendesk', fields: {} }, 'fields.subdomain'],
    [{ platform: 'zendesk', fields: { subdomain: 42 } }, 'fields.subdomain'],
    [{ platform: 'nope', fields: { subdomain: 'acme' } }, 'platform'],
    [{ fields: { subdomain: 'acme' } }, 'platform'],
  ])('bad connect input %j names %s', async (body, field) => {
    const { status, body: problem } = await client(stack, stack.apiKey).post('/v1/integrations/connect', body)
    expect(status).toBe(400)
    expect(problem.code).toBe('invalid_input')
    expect(problem.errors.map((e: any) => e.field)).toContain(field)
  })

  it('credentials are encrypted at rest and never returned', async () => {
    const result = await connectZendesk(stack)
    const row = await stack.services.store.db
      .selectFrom('integrations')
      .selectAll()
      .where('id', '=', result.integrationId!)
      .executeTakeFirstOrThrow()
    const tokens = await storedTokens(stack, result.integrationId!)
    expect(row.credentials).toMatch(/^v1\./)
    expect(row.credentials).not.toContain(tokens.access_token)
    const listing = await client(stack, stack.apiKey).get('/v1/integrations')
    expect(listing.text).not.toContain(tokens.access_token)
    expect(listing.text).not.toContain(tokens.refresh_token!)
  })

  it('the sandbox saw a PKCE-verified token exchange with the JSON body Zendesk documents', async () => {
    const control = zendeskControl(stack)
    await control.clearRequests()
    await connectZendesk(stack)
    const token = (await control.requests()).filter((r) => r.path.endsWith('/oauth/tokens'))
    expect(token).toHaveLength(1)
    expect([200, 201]).toContain(token[0].status)
  })
})
