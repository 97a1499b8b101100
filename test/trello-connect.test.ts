import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from '../src/server/app.ts'
import { connectTrelloOAuth } from './helpers/connect-trello.ts'
import { client } from './helpers/stack.ts'
import { TRELLO, trelloControl } from './helpers/trello.ts'

// Both ways of connecting Trello, end to end over HTTP against the sandbox.
let stack: TestStack
beforeAll(async () => { stack = await startTestStack() })
afterAll(async () => { await stack?.close() })

const api = () => client(stack, stack.apiKey)
const me = (integration: string, extra: Record<string, unknown> = {}) =>
  api().run('trello.api_call', integration, { method: 'GET', endpoint: '/1/members/me', query: { fields: 'username,fullName' }, ...extra })

describe('Trello with OAuth 1.0a', () => {
  it('connects through the authorize page and is listed under the member\'s full name', async () => {
    const result = await connectTrelloOAuth(stack)
    expect(result.integrationId, result.landing.toString()).toBeDefined()
    const view = await api().get(`/v1/integrations/${result.integrationId}`)
    expect(view.body).toMatchObject({ platform: 'trello', account_name: 'Ada Lovelace', external_id: TRELLO.members.ada.id, status: 'active' })
    // The request-token dance went to the sandbox's OAuth endpoints, signed with the app secret.
    expect(result.browser.visited.some((u) => u.includes('/trello/1/OAuthAuthorizeToken?oauth_token='))).toBe(true)
  })

  it('signs every proxied request: the right token secret works, a wrong one is refused by the platform', async () => {
    const { integrationId } = await connectTrelloOAuth(stack, { email: 'grace@trello.test' })
    const ok = await me(integrationId!)
    expect(ok.body.output).toMatchObject({ status: 200, body: { username: 'grace' } })

    const row = await stack.services.integrations.get(stack.userId, integrationId!)
    const credential = stack.services.credentials.open(row.credentials!)
    expect(credential.kind).toBe('oauth1')
    await stack.services.integrations.storeCredentials(integrationId!, stack.services.credentials.seal({ ...credential, token_secret: 'wrong' } as typeof credential), null)
    const forged = await me(integrationId!)
    expect(forged.body.output.status).toBe(401)
  })

  it('deny comes back as an auth_error naming the OAuth rule', async () => {
    const result = await connectTrelloOAuth(stack, { decision: 'deny' })
    expect(result.integrationId).toBeUndefined()
    expect(result.landing.searchParams.get('code')).toBe('auth_error')
    expect(JSON.parse(result.landing.searchParams.get('applies')!)).toEqual([0])
  })
})

describe('Trello with an API key plus token', () => {
  it('validates the pair at once and lists the integration under the member\'s name', async () => {
    const token = await trelloControl(stack).mintToken('ada')
    const created = await api().post('/v1/integrations', { platform: 'trello', credentials: { key: TRELLO.app.key, token } })
    expect(created.status, created.text).toBe(201)
    expect(created.body).toMatchObject({ platform: 'trello', account_name: 'Ada Lovelace', status: 'active' })
    expect(created.text).not.toContain(token)
    const listed = await api().get('/v1/integrations')
    expect(listed.text).not.toContain(token)
    expect((await me(created.body.id)).body.output.body.username).toBe('ada')
  })

  it('says clearly when the pasted value is the app secret, not a token', async () => {
    const { status, body } = await api().post('/v1/integrations', { platform: 'trello', credentials: { key: TRELLO.app.key, token: TRELLO.app.secret } })
    expect(status).toBe(400)
    expect(body.code).toBe('auth_error')
    expect(body.detail).toMatch(/app's secret, not a token/)
    expect(body.applies).toEqual([1])
    expect(body.detail).toContain('/1/authorize?expiration=never&name=Switchyard&scope=read%2Cwrite&response_type=token&key=')
    expect(JSON.stringify(body)).not.toContain(TRELLO.app.secret)
  })

  it('refuses a token Trello does not know, with the rules', async () => {
    const { status, body } = await api().post('/v1/integrations', { platform: 'trello', credentials: { key: TRELLO.app.key, token: 'a'.repeat(64) } })
    expect(status).toBe(400)
    expect(body.code).toBe('auth_error')
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
    const integration = (await api().post('/v1/integrations', { platform: 'trello', credentials: { key: TRELLO.app.key, token: adaToken } })).body.id
    const graceToken = await trelloControl(stack).mintToken('grace')
    const result = await me(integration, { auth: { method: 'api_key', key: TRELLO.app.key, token: graceToken } })
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
