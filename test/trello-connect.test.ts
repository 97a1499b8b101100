import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectTrelloOAuth } from './helpers/connect-trello.ts'
import { client } from './helpers/stack.ts'
import { TRELLO, trelloControl } from './helpers/trello.ts'

// Both ways of connecting Trello, end to end over HTTP against the sandbox.
let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => {
  await stack?.close()
})

const api = () => client(stack, stack.apiKey)
const me = (integration: string, extra: Record<string, unknown> = {}) =>
  api().run('trello.api_call', integration, {
    method: 'GET',
    endpoint: '/1/members/me',
    query: { fields: 'username,fullName' },
    ...extra,
  })

describe('Trello with OAuth 1.0a', () => {
  it("connects through the authorize page and is listed under the member's full name", async () => {
    const result = await connectTrelloOAuth(stack)
    expect(result.integrationId, result.landing.toString()).toBeDefined()
    const view = await api().get(`/v1/integrations/${result.integrationId}`)
    expect(view.body).toMatchObject({
      platform: 'trello',
      account_name: 'Ada Lovelace (ada)',
      external_id: TRELLO.members.ada.id,
      status: 'active',
    })
    // The request-token dance went to the sandbox's OAuth endpoints, signed with the app secret.
    expect(result.browser.visited.some((u) => u.includes('/trello/1/OAuthAuthorizeToken?oauth_token='))).toBe(
      true,
    )
  })

  it('signs every proxied request: the right token secret works, a wrong one is refused by the platform', async () => {
    const { integrationId } = await connectTrelloOAuth(stack, { email: 'grace@trello.test' })
    const ok = await me(integrationId!)
    expect(ok.body.output).toMatchObject({ status: 200, body: { username: 'grace' } })

    const row = await stack.services.integrations.get(stack.userId, integrationId!)
    const credential = stack.services.credentials.open(row.credentials!)
    expect(credential.kind).toBe('oauth1')
    await stack.services.integrations.storeCredentials(
      integrationId!,
      stack.services.credentials.seal({ ...credential, token_secret: 'wrong' } as typeof credential),
      null,
    )
    const forged = await me(integrationId!)
    expect(forged.body.output.status).toBe(401)
  })

  it('Deny says that nothing was connected: no raw access_denied, no API-key tips', async () => {
    const result = await connectTrelloOAuth(stack, { decision: 'deny' })
    expect(result.integrationId).toBeUndefined()
    expect(result.landing.searchParams.get('code')).toBe('connect_failed')
    expect(result.landing.searchParams.get('error')).toBe(
      "You chose Deny on Trello's authorization page, so nothing was connected. Connect again and choose Allow to add the account.",
    )
    expect(result.landing.searchParams.has('troubleshooting')).toBe(false)
  })
})

describe('Trello with an API key plus token', () => {
  it("validates the pair at once and lists the integration under the member's name", async () => {
    const token = await trelloControl(stack).mintToken('ada')
    const created = await api().post('/v1/integrations', {
      platform: 'trello',
      credentials: { key: TRELLO.app.key, token },
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body).toMatchObject({
      platform: 'trello',
      account_name: 'Ada Lovelace (ada)',
      status: 'active',
    })
    expect(created.text).not.toContain(token)
    const listed = await api().get('/v1/integrations')
    expect(listed.text).not.toContain(token)
    expect((await me(created.body.id)).body.output.body.username).toBe('ada')
  })

  it('says clearly when the pasted value is the app secret, not a token', async () => {
    const { status, body } = await api().post('/v1/integrations', {
      platform: 'trello',
      credentials: { key: TRELLO.app.key, token: TRELLO.app.secret },
    })
    expect(status).toBe(400)
    expect(body.code).toBe('connect_failed')
    expect(body.detail).toMatch(/app's secret, not a token/)
    expect(body.applies).toEqual([1])
    expect(body.detail).toContain(
      '/1/authorize?expiration=never&name=Switchyard&scope=read%2Cwrite&response_type=token&key=',
    )
    expect(JSON.stringify(body)).not.toContain(TRELLO.app.secret)
  })

  it('refuses a token Trello does not know, with the rules', async () => {
    const { status, body } = await api().post('/v1/integrations', {
      platform: 'trello',
      credentials: { key: TRELLO.app.key, token: 'a'.repeat(64) },
    })
    expect(status).toBe(400)
    expect(body.code).toBe('connect_failed')
    expect(body.detail).toBe('Trello refused these credentials: invalid token')
    expect(body.troubleshooting).toHaveLength(4)
    expect(body.applies).toEqual([1, 2, 3])
  })

  it.each([
    [{ key: 'nope', token: 'a'.repeat(64) }, 'credentials.key'],
    [{ key: TRELLO.app.key, token: 'short' }, 'credentials.token'],
    [{ key: TRELLO.app.key }, 'credentials.token'],
    [{}, 'credentials.key'],
  ])('bad pasted credentials %j name %s', async (credentials, field) => {
    const { status, body } = await api().post('/v1/integrations', { platform: 'trello', credentials })
    expect(status).toBe(400)
    expect(body.errors.map((e: any) => e.field)).toContain(field)
  })

  it('the API Call step can authenticate with a key and token given in its configuration', async () => {
    const adaToken = await trelloControl(stack).mintToken('ada')
    const integration = (
      await api().post('/v1/integrations', {
        platform: 'trello',
        credentials: { key: TRELLO.app.key, token: adaToken },
      })
    ).body.id
    const graceToken = await trelloControl(stack).mintToken('grace')
    const result = await me(integration, { auth: 'api_key', key: TRELLO.app.key, token: graceToken })
    expect(result.body.output.body.username).toBe('grace')
    expect(result.text).not.toContain(graceToken)
  })

  it('the platform lists both connect methods and the fields to paste', async () => {
    const { body } = await api().get('/v1/platforms')
    const trello = body.platforms.find((p: any) => p.id === 'trello')
    expect(trello).toMatchObject({ kind: 'board', connect_methods: ['authorize', 'credentials'] })
    expect(trello.credential_fields.map((f: any) => f.name)).toEqual(['key', 'token'])
  })
})

describe('reconnecting', () => {
  const paste = (token: string) =>
    api().post('/v1/integrations', { platform: 'trello', credentials: { key: TRELLO.app.key, token } })
  const replace = (integration: string, credentials: unknown) =>
    api().put(`/v1/integrations/${integration}/credentials`, { credentials })

  it('remembers how each integration was connected', async () => {
    const pasted = await paste(await trelloControl(stack).mintToken('ada'))
    expect(pasted.body.connected_with).toBe('credentials')
    const { integrationId } = await connectTrelloOAuth(stack, { email: 'grace@trello.test' })
    expect((await api().get(`/v1/integrations/${integrationId}`)).body.connected_with).toBe('authorization')
  })

  it('a pasted-credentials integration whose token was revoked is reconnected with a new token of the same member', async () => {
    const oldToken = await trelloControl(stack).mintToken('ada')
    const integration = (await paste(oldToken)).body.id as string
    // The member revokes the token on Trello; the next call finds out and flags the integration.
    const revoked = await fetch(
      `${stack.sandboxUrl}/trello/1/tokens/${oldToken}?key=${TRELLO.app.key}&token=${oldToken}`,
      { method: 'DELETE' },
    )
    expect(revoked.status).toBe(200)
    expect((await api().run('trello.get_boards', integration, {})).body.code).toBe('platform_refused')
    expect((await api().get(`/v1/integrations/${integration}`)).body.status).toBe('needs_reconnection')

    const newToken = await trelloControl(stack).mintToken('ada')
    const reconnected = await replace(integration, { key: TRELLO.app.key, token: newToken })
    expect(reconnected.status, reconnected.text).toBe(200)
    expect(reconnected.body).toMatchObject({
      id: integration,
      status: 'active',
      connected_with: 'credentials',
      account_name: 'Ada Lovelace (ada)',
    })
    expect(reconnected.text).not.toContain(newToken)
    expect((await me(integration)).body.output.body.username).toBe('ada')
  })

  it("an API Call that finds the token revoked returns Trello's 401 as data and flags the integration", async () => {
    const token = await trelloControl(stack).mintToken('ada')
    const integration = (await paste(token)).body.id as string
    // A refused per-step key and token say nothing about the integration's own.
    const stepAuth = await me(integration, { auth: 'api_key', key: TRELLO.app.key, token: 'b'.repeat(64) })
    expect(stepAuth.body.output.status).toBe(401)
    expect((await api().get(`/v1/integrations/${integration}`)).body.status).toBe('active')

    await fetch(`${stack.sandboxUrl}/trello/1/tokens/${token}?key=${TRELLO.app.key}&token=${token}`, {
      method: 'DELETE',
    })
    const refused = await me(integration)
    expect(refused.status).toBe(200)
    expect(refused.body.output).toMatchObject({ status: 401, body: 'invalid token' })
    expect((await api().get(`/v1/integrations/${integration}`)).body.status).toBe('needs_reconnection')
  })

  it("refuses another member's token, and keeps the integration as it was", async () => {
    const integration = (await paste(await trelloControl(stack).mintToken('ada'))).body.id as string
    const { status, body } = await replace(integration, {
      key: TRELLO.app.key,
      token: await trelloControl(stack).mintToken('grace'),
    })
    expect(status).toBe(400)
    expect(body.code).toBe('connect_failed')
    expect(body.detail).toMatch(
      /are for Grace Hopper \(grace\), but this integration is for Ada Lovelace \(ada\)/,
    )
    expect((await me(integration)).body.output.body.username).toBe('ada')
  })

  it.each([
    [undefined, 'credentials'],
    [{ key: TRELLO.app.key }, 'credentials.token'],
    [{ key: 'nope', token: 'a'.repeat(64) }, 'credentials.key'],
  ])('bad new credentials %j name %s', async (credentials, field) => {
    const integration = (await paste(await trelloControl(stack).mintToken('ada'))).body.id as string
    const { status, body } = await replace(integration, credentials)
    expect(status).toBe(400)
    expect(body.errors.map((e: any) => e.field)).toContain(field)
  })

  it("is not found for another user's integration", async () => {
    const integration = (await paste(await trelloControl(stack).mintToken('ada'))).body.id as string
    const other = await stack.createUser()
    const { status } = await client(stack, other.apiKey).put(`/v1/integrations/${integration}/credentials`, {
      credentials: { key: TRELLO.app.key, token: 'a'.repeat(64) },
    })
    expect(status).toBe(404)
  })
})
