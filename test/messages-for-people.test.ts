import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { connectTrelloWithToken } from './helpers/trello.ts'
import { connectVercel } from './helpers/vercel.ts'
import { client, zendeskControl } from './helpers/stack.ts'

// Messages name the real cause, in sentences for people (issue 13 §3; docs/errors.md).

let stack: TestStack
const integrations: Record<string, string> = {}

beforeAll(async () => {
  stack = await startTestStack()
  integrations.zendesk = (await connectZendesk(stack)).integrationId!
  integrations.vercel = (await connectVercel(stack)).integrationId!
  integrations.trello = await connectTrelloWithToken(stack)
})
afterAll(async () => {
  await stack?.close()
})

const api = () => client(stack, stack.apiKey)

describe('validation messages are sentences that name the field', () => {
  it.each([
    [
      'zendesk.api_call',
      { method: 'FETCH', endpoint: '/api/v2/tickets.json' },
      'input.method',
      'must be one of GET, POST, PUT, PATCH or DELETE',
    ],
    [
      'zendesk.api_call',
      { method: 'GET', endpoint: '/tickets/7.json' },
      'input.endpoint',
      'start the path with /api/v2/, for example /api/v2/tickets/7.json',
    ],
    ['zendesk.api_call', { method: 'GET', endpoint: '' }, 'input.endpoint', 'is required'],
    [
      'zendesk.api_call',
      { method: 'GET', endpoint: '/api/v2/tickets.json', query: ['status=open'] },
      'input.query',
      'must be an object of names to values, not a list',
    ],
    [
      'zendesk.api_call',
      { method: 'GET', endpoint: '/api/v2/tickets.json', headers: 'x-a: b' },
      'input.headers',
      'must be an object of names to values',
    ],
    [
      'vercel.api_call',
      { method: 'GET', endpoint: '/deployments' },
      'input.endpoint',
      'start the path with an API version such as /v13/, for example /v13/deployments/dpl_1a2b3c',
    ],
    [
      'trello.api_call',
      { method: 'GET', endpoint: '/members/me' },
      'input.endpoint',
      'start the path with /1/, for example /1/members/me/boards',
    ],
    [
      'trello.api_call',
      { method: 'GET', endpoint: '/1/members/me', auth: 'oauth' },
      'input.auth',
      'must be one of integration or api_key',
    ],
    [
      'trello.api_call',
      { method: 'GET', endpoint: '/1/members/me', auth: 'api_key', key: '0123456789abcdef0123456789abcdef' },
      'input.token',
      'is required with auth "api_key"',
    ],
    [
      'trello.api_call',
      { method: 'GET', endpoint: '/1/members/me', token: 'b'.repeat(64) },
      'input.token',
      'is only used with auth "api_key"',
    ],
    ['zendesk.create_ticket', { description: 'd' }, 'input.subject', 'is required'],
    ['zendesk.create_ticket', { subject: '   ', description: 'd' }, 'input.subject', 'is required'],
    [
      'zendesk.create_ticket',
      { subject: 'x'.repeat(256), description: 'd' },
      'input.subject',
      'must be at most 255 characters',
    ],
    [
      'zendesk.create_ticket',
      { subject: 's', description: 'd', priority: 'huge' },
      'input.priority',
      'must be one of urgent, high, normal or low',
    ],
    ['zendesk.create_ticket', { subject: 42, description: 'd' }, 'input.subject', 'must be text'],
    ['zendesk.list_tickets', { limit: 1000 }, 'input.limit', 'must be at most 100'],
    ['zendesk.list_tickets', { limit: 2.5 }, 'input.limit', 'must be a whole number'],
    ['vercel.list_deployments', { limit: -1 }, 'input.limit', 'must be at least 1'],
    // Hand-written messages on the schema win over the general ones.
    [
      'zendesk.get_ticket',
      { ticket_id: 'abc' },
      'input.ticket_id',
      'must be a ticket id (a positive integer)',
    ],
    [
      'zendesk.list_tickets',
      { created_after: 'yesterday' },
      'input.created_after',
      'must be a date (YYYY-MM-DD) or an ISO date-time',
    ],
    [
      'trello.create_card',
      { list_id: 'nope', name: 'x' },
      'input.list_id',
      'must be a list id: 24 lowercase hexadecimal characters, like 5f2b8c0e9d1a4b3c2d1e0f9a',
    ],
  ])('%s %j: %s %s', async (tool, input, field, message) => {
    const { status, body } = await api().run(tool, integrations[tool.split('.')[0]], input)
    expect(status).toBe(400)
    expect(body.errors).toEqual([{ field, message }])
    expect(body.detail).toBe(`${field}: ${message}`)
  })

  it('the REST edge speaks the same way', async () => {
    const { status, body } = await api().post('/v1/integrations/connect', { platform: 'zendesk', fields: [] })
    expect(status).toBe(400)
    expect(body.errors).toEqual([
      { field: 'fields', message: 'must be an object of names to values, not a list' },
    ])
  })
})

describe('the API Call forms say what they want, in words', () => {
  const schemaOf = async (id: string) =>
    (await api().get('/v1/tools')).body.tools.find((t: { id: string }) => t.id === id).inputSchema

  it('endpoint help gives the prefix in words and an example, never a regular expression', async () => {
    const vercel = await schemaOf('vercel.api_call')
    expect(vercel.properties.endpoint.description).toBe(
      'The path, starting with an API version such as /v13/, for example /v13/deployments/dpl_1a2b3c; a query string is allowed',
    )
    expect(vercel.properties.endpoint.examples).toEqual(['/v13/deployments/dpl_1a2b3c'])
    const zendesk = await schemaOf('zendesk.api_call')
    expect(zendesk.properties.endpoint.description).toBe(
      'The path, starting with /api/v2/, for example /api/v2/tickets/7.json; a query string is allowed',
    )
  })

  it("the map example belongs to the step's platform and says what the map is for", async () => {
    const zendesk = await schemaOf('zendesk.api_call')
    expect(zendesk.properties.map.description).toBe(
      'Values to keep from the answer for later steps of a workflow: a variable name, then where to find it in {status, headers, body}; for example ticket_id → body.ticket.id',
    )
    expect(zendesk.properties.map.examples).toEqual([{ ticket_id: 'body.ticket.id' }])
    expect((await schemaOf('vercel.api_call')).properties.map.examples).toEqual([
      { deployment_url: 'body.url' },
    ])
  })

  it('auth is offered only where there is a choice', async () => {
    expect(Object.keys((await schemaOf('zendesk.api_call')).properties)).not.toContain('auth')
    expect(Object.keys((await schemaOf('vercel.api_call')).properties)).not.toContain('auth')
    expect(Object.keys((await schemaOf('trello.api_call')).properties)).toContain('auth')
    // Trello's is a choice, with one plain field per credential, not a JSON object.
    const trello = await schemaOf('trello.api_call')
    expect(trello.properties.auth).toMatchObject({ enum: ['integration', 'api_key'], default: 'integration' })
    expect(trello.properties.key).toMatchObject({ type: 'string', writeOnly: true })
    expect(trello.properties.token).toMatchObject({ type: 'string', writeOnly: true })
  })
})

describe('an unknown Zendesk subdomain is refused before the person is sent away', () => {
  it('answers 400 naming fields.subdomain, and starts no flow', async () => {
    const { status, body } = await api().post('/v1/integrations/connect', {
      platform: 'zendesk',
      fields: { subdomain: 'nope' },
    })
    expect(status).toBe(400)
    expect(body.code).toBe('invalid_input')
    expect(body.errors).toEqual([
      { field: 'fields.subdomain', message: 'no Zendesk help desk at nope.zendesk.com: check the subdomain' },
    ])
    expect(body.connect_url).toBeUndefined()
  })

  it('a help desk that exists still starts its flow', async () => {
    const { status, body } = await api().post('/v1/integrations/connect', {
      platform: 'zendesk',
      fields: { subdomain: 'acme' },
    })
    expect(status).toBe(201)
    expect(body.connect_url).toMatch(/\/oauth\/start\//)
  })
})

describe('a step on a disconnected integration says so, and that the platform was not contacted', () => {
  it('409 reconnect_required with the integration id and no troubleshooting guesses', async () => {
    const user = await stack.createUser()
    const connected = await connectZendesk({ url: stack.url, apiKey: user.apiKey })
    const id = connected.integrationId!
    const as = client(stack, user.apiKey)
    expect((await as.post(`/v1/integrations/${id}/disconnect`)).status).toBe(200)
    const control = zendeskControl(stack)
    await control.call('DELETE', '/requests')
    const { status, body } = await as.run('zendesk.get_ticket', id, { ticket_id: 1 })
    expect(status).toBe(409)
    expect(body).toMatchObject({
      code: 'reconnect_required',
      title: 'The integration needs reconnection',
      detail:
        'integration "Ada Admin (acme)" is disconnected, so Zendesk was not contacted. Reconnect it to run steps on it',
      integration_id: id,
    })
    expect(body.troubleshooting).toBeUndefined()
    expect(await control.requests()).toEqual([])
  })
})
