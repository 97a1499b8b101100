import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client } from './helpers/stack.ts'

// Tenants: a user sees and uses only their own things, on every route. Another user's id answers
// exactly like an id that does not exist, so nothing reveals it.
let stack: TestStack
let owner: { id: string; apiKey: string }
let intruder: { id: string; apiKey: string }
let integrationId: string
let ownerKeyId: string

beforeAll(async () => {
  stack = await startTestStack()
  owner = await stack.createUser()
  intruder = await stack.createUser()
  integrationId = (await connectZendesk({ url: stack.url, apiKey: owner.apiKey })).integrationId!
  ownerKeyId = (await client(stack, owner.apiKey).get('/v1/api-keys')).body.api_keys[0].id
})
afterAll(async () => {
  await stack?.close()
})

describe('tenant isolation on every route', () => {
  const routes: Array<[string, string, () => string, unknown?]> = [
    ['GET', 'get integration', () => `/v1/integrations/${integrationId}`],
    ['POST', 'reconnect', () => `/v1/integrations/${integrationId}/reconnect`, {}],
    ['POST', 'disconnect', () => `/v1/integrations/${integrationId}/disconnect`, {}],
    ['DELETE', 'delete integration', () => `/v1/integrations/${integrationId}`],
    ['DELETE', 'delete API key', () => `/v1/api-keys/${ownerKeyId}`],
  ]

  it.each(routes)(
    "%s %s with another user's id answers 404 like a missing id",
    async (method, _name, path, body) => {
      const api = client(stack, intruder.apiKey)
      const theirs = await api.call(method, path(), body)
      const missing = await api.call(
        method,
        path().replace(/(int|key)_[A-Za-z0-9_-]+/, '$1_doesnotexist00000000'),
        body,
      )
      expect(theirs.status).toBe(404)
      expect(theirs.body.code).toBe('not_found')
      expect(missing.status).toBe(404)
      expect(theirs.body.detail).toBe(missing.body.detail)
    },
  )

  it.each([
    'zendesk.get_ticket',
    'zendesk.list_tickets',
    'zendesk.create_ticket',
    'zendesk.update_ticket',
    'zendesk.search_tickets',
    'zendesk.delete_ticket',
    'zendesk.api_call',
  ])("running %s on another user's integration answers 404, by id and by account name", async (tool) => {
    const api = client(stack, intruder.apiKey)
    const input = {
      ticket_id: 1,
      subject: 's',
      description: 'd',
      query: 'x',
      status: 'open',
      method: 'GET',
      endpoint: '/api/v2/tickets.json',
    }
    for (const ref of [integrationId, 'Ada Admin (acme)']) {
      const { status, body } = await api.run(
        tool,
        ref,
        tool === 'zendesk.list_tickets' ? {} : pick(tool, input),
      )
      expect(status, JSON.stringify(body)).toBe(404)
      expect(body.code).toBe('not_found')
    }
  })

  it("lists show only the caller's own integrations and keys", async () => {
    const api = client(stack, intruder.apiKey)
    expect((await api.get('/v1/integrations')).body.integrations).toEqual([])
    const keys = (await api.get('/v1/api-keys')).body.api_keys
    expect(keys.map((k: any) => k.id)).not.toContain(ownerKeyId)
  })

  it("the owner still has everything after the intruder's attempts", async () => {
    const api = client(stack, owner.apiKey)
    const { status, body } = await api.get(`/v1/integrations/${integrationId}`)
    expect(status).toBe(200)
    expect(body.status).toBe('active')
    expect((await api.get('/v1/api-keys')).body.api_keys).toHaveLength(1)
  })

  it.each([
    ['GET', '/v1/integrations'],
    ['GET', '/v1/me'],
    ['GET', '/v1/tools'],
    ['GET', '/v1/platforms'],
    ['GET', '/v1/api-keys'],
    ['POST', '/v1/integrations/connect'],
    ['POST', '/v1/tools/zendesk.get_ticket/run'],
  ])('%s %s needs an API key or a session', async (method, path) => {
    const res = await fetch(`${stack.url}${path}`, { method })
    expect(res.status).toBe(401)
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/)
    const forged = await fetch(`${stack.url}${path}`, {
      method,
      headers: { authorization: 'Bearer sy_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' },
    })
    expect(forged.status).toBe(401)
  })

  it('a session cookie works for reads and needs our Origin for writes', async () => {
    const login = await fetch(`${stack.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: owner.apiKey }),
    })
    expect(login.status).toBe(204)
    const cookie = login.headers.getSetCookie()[0].split(';')[0]
    expect(login.headers.getSetCookie()[0]).toMatch(/HttpOnly/i)
    const me = await fetch(`${stack.url}/v1/me`, { headers: { cookie } })
    expect((await me.json()).id).toBe(owner.id)
    const crossSite = await fetch(`${stack.url}/v1/api-keys`, {
      method: 'POST',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{}',
    })
    expect(crossSite.status).toBe(403)
    const sameSite = await fetch(`${stack.url}/v1/api-keys`, {
      method: 'POST',
      headers: { cookie, origin: stack.url, 'content-type': 'application/json' },
      body: '{"name":"web"}',
    })
    expect(sameSite.status).toBe(201)
  })
})

function pick(tool: string, input: Record<string, unknown>) {
  switch (tool) {
    case 'zendesk.create_ticket':
      return { subject: input.subject, description: input.description }
    case 'zendesk.search_tickets':
      return { query: input.query }
    case 'zendesk.update_ticket':
      return { ticket_id: input.ticket_id, status: input.status }
    case 'zendesk.api_call':
      return { method: input.method, endpoint: input.endpoint }
    default:
      return { ticket_id: input.ticket_id }
  }
}
