import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, zendeskControl } from './helpers/stack.ts'

// Every tool step runs against the sandbox over real HTTP, through the REST API.
let stack: TestStack
let integration: string
let api: ReturnType<typeof client>

beforeAll(async () => {
  stack = await startTestStack()
  integration = (await connectZendesk(stack)).integrationId!
  api = client(stack, stack.apiKey)
})
afterAll(async () => {
  await stack?.close()
})

async function createTicket(input: Record<string, unknown> = {}) {
  const { status, body } = await api.run('zendesk.create_ticket', integration, {
    subject: 'Printer on fire',
    description: 'The smoke is very colorful.',
    ...input,
  })
  expect(status, JSON.stringify(body)).toBe(200)
  return body.output
}

describe('Zendesk tool steps against the sandbox', () => {
  it('Create Ticket creates a ticket with priority, type and an assignee by email', async () => {
    const ticket = await createTicket({ priority: 'urgent', type: 'incident', assignee: 'agent@acme.test' })
    expect(ticket).toMatchObject({
      subject: 'Printer on fire',
      description: 'The smoke is very colorful.',
      priority: 'urgent',
      type: 'incident',
    })
    expect(Number.isInteger(ticket.id)).toBe(true)
    expect(ticket.assignee_id).toEqual(expect.any(Number))
    const info = await api.run('zendesk.get_ticket', integration, { ticket_id: ticket.id })
    expect(info.body.output.assignee).toEqual({
      id: ticket.assignee_id,
      name: 'Alan Agent',
      email: 'agent@acme.test',
    })
  })

  it('the integration can be named by its account name', async () => {
    const { status } = await api.run('zendesk.create_ticket', 'Ada Admin (acme)', {
      subject: 's',
      description: 'd',
    })
    expect(status).toBe(200)
  })

  it('Update Ticket changes fields and adds an internal note; Get Ticket Info returns every comment', async () => {
    const ticket = await createTicket()
    const updated = await api.run('zendesk.update_ticket', integration, {
      ticket_id: ticket.id,
      status: 'pending',
      priority: 'low',
      tags: ['vip', 'printer'],
      internal_note: 'Agents only',
    })
    expect(updated.status).toBe(200)
    expect(updated.body.output).toMatchObject({
      status: 'pending',
      priority: 'low',
      tags: expect.arrayContaining(['vip', 'printer']),
    })
    await api.run('zendesk.update_ticket', integration, {
      ticket_id: ticket.id,
      public_comment: 'We are on it',
    })

    const info = await api.run('zendesk.get_ticket', integration, { ticket_id: ticket.id })
    expect(info.status).toBe(200)
    expect(info.body.output).toMatchObject({
      id: ticket.id,
      status: 'pending',
      priority: 'low',
      requester: { name: 'Ada Admin', email: 'admin@acme.test' },
      assignee: null,
    })
    expect(info.body.output.comments[1].author).toMatchObject({ name: 'Ada Admin' })
    expect(info.body.output.comments.map((c: any) => [c.body, c.public])).toEqual([
      ['The smoke is very colorful.', true],
      ['Agents only', false],
      ['We are on it', true],
    ])
  })

  it('Get Ticket Info follows comment pagination past 100 comments', async () => {
    const ticket = await createTicket()
    const token = await zendeskControl(stack).mintToken('admin@acme.test')
    for (let i = 1; i <= 120; i++) {
      const res = await fetch(`${stack.sandboxUrl}/zendesk/acme/api/v2/tickets/${ticket.id}.json`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ticket: { comment: { body: `note ${i}`, public: false } } }),
      })
      expect(res.status).toBe(200)
    }
    const info = await api.run('zendesk.get_ticket', integration, { ticket_id: ticket.id })
    expect(info.body.output.comments).toHaveLength(121)
    expect(info.body.output.comments.at(-1).body).toBe('note 120')
  })

  it('List Tickets pages with a cursor and filters by status, priority and assignee', async () => {
    const marker = `list-${Date.now()}`
    for (let i = 0; i < 3; i++) await createTicket({ subject: `${marker} ${i}`, priority: 'high' })
    const page1 = await api.run('zendesk.list_tickets', integration, { limit: 2 })
    expect(page1.status).toBe(200)
    expect(page1.body.output.tickets).toHaveLength(2)
    expect(page1.body.output.next_cursor).toMatch(/^c:/)
    const page2 = await api.run('zendesk.list_tickets', integration, {
      limit: 2,
      cursor: page1.body.output.next_cursor,
    })
    expect(page2.body.output.tickets[0].id).not.toBe(page1.body.output.tickets[0].id)

    const filtered = await api.run('zendesk.list_tickets', integration, {
      priority: 'high',
      status: 'new',
      limit: 100,
    })
    expect(filtered.status).toBe(200)
    expect(filtered.body.output.tickets.length).toBeGreaterThanOrEqual(3)
    for (const t of filtered.body.output.tickets) expect(t).toMatchObject({ priority: 'high', status: 'new' })

    const unassigned = await api.run('zendesk.list_tickets', integration, {
      assignee: 'none',
      created_after: '2000-01-01',
    })
    for (const t of unassigned.body.output.tickets) expect(t.assignee_id).toBeNull()
  })

  it('Search Tickets speaks the search language', async () => {
    const marker = `zebra${Date.now()}`
    const hit = await createTicket({ subject: `${marker} printer`, priority: 'urgent' })
    await createTicket({ subject: `${marker} scanner`, priority: 'low' })
    const { status, body } = await api.run('zendesk.search_tickets', integration, {
      query: `${marker} priority:urgent`,
    })
    expect(status).toBe(200)
    expect(body.output.tickets.map((t: any) => t.id)).toEqual([hit.id])
    const negated = await api.run('zendesk.search_tickets', integration, {
      query: `${marker} -priority:urgent`,
    })
    expect(negated.body.output.tickets.map((t: any) => t.subject)).toEqual([`${marker} scanner`])
  })

  it('Delete Ticket removes the ticket for good', async () => {
    const ticket = await createTicket()
    const deleted = await api.run('zendesk.delete_ticket', integration, { ticket_id: ticket.id })
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
    expect(deleted.body.output).toEqual({ id: ticket.id, deleted: true })
    const after = await api.run('zendesk.get_ticket', integration, { ticket_id: ticket.id })
    expect(after.status).toBe(404)
    expect(after.body.code).toBe('not_found')
  })

  it("a missing ticket is not_found in Zendesk's words", async () => {
    const { status, body } = await api.run('zendesk.get_ticket', integration, { ticket_id: 999999 })
    expect(status).toBe(404)
    expect(body).toMatchObject({ code: 'not_found', upstream_status: 404 })
    expect(body.detail).toMatch(/RecordNotFound/)
  })

  it('Zendesk API Call forwards a request and maps the response to variables', async () => {
    const ticket = await createTicket({ subject: 'via api call' })
    const { status, body } = await api.run('zendesk.api_call', integration, {
      method: 'GET',
      endpoint: `/api/v2/tickets/${ticket.id}.json`,
      map: {
        subject: 'body.ticket.subject',
        code: 'status',
        limit: 'headers.x-rate-limit',
        missing: 'body.nope[3].x',
      },
    })
    expect(status).toBe(200)
    expect(body.output.status).toBe(200)
    expect(body.output.headers['content-type']).toMatch(/json/)
    expect(body.output.variables).toEqual({
      subject: 'via api call',
      code: 200,
      limit: expect.any(String),
      missing: null,
    })
    expect(body.output.rate_limit).toEqual({
      limit: 700,
      remaining: expect.any(Number),
      reset_at: expect.stringMatching(/^\d{4}-/),
    })
  })

  it('Zendesk API Call POST returns the platform status and body, and 4xx answers as data', async () => {
    const created = await api.run('zendesk.api_call', integration, {
      method: 'POST',
      endpoint: '/api/v2/tickets.json',
      body: { ticket: { subject: 'raw', comment: { body: 'raw body' } } },
    })
    expect(created.body.output.status).toBe(201)
    expect(created.body.output.body.ticket.subject).toBe('raw')
    const invalid = await api.run('zendesk.api_call', integration, {
      method: 'POST',
      endpoint: '/api/v2/tickets.json',
      body: { ticket: { subject: 'no comment' } },
    })
    expect(invalid.status).toBe(200)
    expect(invalid.body.output.status).toBe(422)
    expect(invalid.body.output.body.error).toBe('RecordInvalid')
  })

  it('an upstream validation error names the field', async () => {
    const { status, body } = await api.run('zendesk.create_ticket', integration, {
      subject: 's',
      description: 'd',
      assignee: 'nobody@nowhere.test',
    })
    expect(status).toBe(400)
    expect(body).toMatchObject({ code: 'invalid_input', upstream_status: 422 })
    expect(body.errors[0].field).toMatch(/assignee/)
  })
})
