import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN, AGENT, bearer, call, CUSTOMER, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
let acme: string
let auth: string
let ids: { admin: number; agent: number; customer: number }

beforeAll(async () => {
  sandbox = await startTestSandbox()
  acme = sandbox.base('acme')
  auth = bearer(await sandbox.token('acme', AGENT))
  const account = (await sandbox.control('/accounts/acme')).body.account
  const id = (email: string) => account.users.find((u: { email: string }) => u.email === email).id as number
  ids = { admin: id(ADMIN), agent: id(AGENT), customer: id(CUSTOMER) }
})
afterAll(() => sandbox.close())

const TICKET_KEYS = [
  'id',
  'url',
  'subject',
  'raw_subject',
  'description',
  'status',
  'priority',
  'type',
  'requester_id',
  'submitter_id',
  'assignee_id',
  'organization_id',
  'group_id',
  'collaborator_ids',
  'follower_ids',
  'email_cc_ids',
  'tags',
  'custom_fields',
  'via',
  'created_at',
  'updated_at',
  'due_at',
  'external_id',
  'has_incidents',
  'is_public',
]
const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

async function createTicket(ticket: Record<string, unknown>) {
  return call(`${acme}/api/v2/tickets.json`, { auth, json: { ticket } })
}

describe('create', () => {
  it('answers 201 with {ticket, audit}, a Location, and the first comment as description', async () => {
    const response = await createTicket({
      subject: 'My printer is on fire!',
      comment: { body: 'The smoke is very colorful.' },
      priority: 'urgent',
      type: 'incident',
      tags: ['Printer', 'fire'],
      custom_fields: [{ id: 27642, value: '745' }],
      external_id: 'ext-1',
    })
    expect(response.status).toBe(201)
    const { ticket, audit } = response.body
    for (const key of TICKET_KEYS) expect(ticket).toHaveProperty(key)
    expect(ticket).toMatchObject({
      subject: 'My printer is on fire!',
      raw_subject: 'My printer is on fire!',
      description: 'The smoke is very colorful.',
      status: 'new',
      priority: 'urgent',
      type: 'incident',
      requester_id: ids.agent,
      submitter_id: ids.agent,
      assignee_id: null,
      tags: ['printer', 'fire'],
      custom_fields: [{ id: 27642, value: '745' }],
      external_id: 'ext-1',
      is_public: true,
      via: { channel: 'api' },
    })
    expect(Number.isInteger(ticket.id)).toBe(true)
    expect(ticket.created_at).toMatch(ISO_SECONDS)
    expect(ticket.url).toBe(`${acme}/api/v2/tickets/${ticket.id}.json`)
    expect(response.headers.get('location')).toBe(ticket.url)
    expect(audit.ticket_id).toBe(ticket.id)
    expect(audit.events.find((e: { type: string }) => e.type === 'Comment')).toMatchObject({
      body: 'The smoke is very colorful.',
      public: true,
    })
  })

  it('finds or creates the requester from {name, email} and resolves assignee_email (new → open)', async () => {
    const response = await createTicket({
      comment: { html_body: '<p>Hello <b>there</b></p>' },
      requester: { name: 'Nora New', email: 'nora@example.test' },
      assignee_email: AGENT,
    })
    expect(response.status).toBe(201)
    const { ticket } = response.body
    expect(ticket.assignee_id).toBe(ids.agent)
    expect(ticket.status).toBe('open')
    expect(ticket.description).toBe('Hello there')
    const requester = await call(`${acme}/api/v2/users/${ticket.requester_id}`, { auth })
    expect(requester.body.user).toMatchObject({
      name: 'Nora New',
      email: 'nora@example.test',
      role: 'end-user',
    })
    const again = await createTicket({
      comment: { body: 'x' },
      requester: { name: 'Nora', email: 'nora@example.test' },
    })
    expect(again.body.ticket.requester_id).toBe(ticket.requester_id)
  })

  it('defaults the organization to the requester’s', async () => {
    const response = await createTicket({ comment: { body: 'x' }, requester_id: ids.customer })
    const customer = await call(`${acme}/api/v2/users/${ids.customer}`, { auth })
    expect(response.body.ticket.organization_id).toBe(customer.body.user.organization_id)
  })

  it.each([
    ['no comment', { subject: 'x' }, 'base'],
    ['an empty comment body', { comment: { body: '  ' } }, 'base'],
    ['an invalid status', { comment: { body: 'x' }, status: 'archived' }, 'status'],
    ['an invalid priority', { comment: { body: 'x' }, priority: 'critical' }, 'priority'],
    ['an invalid type', { comment: { body: 'x' }, type: 'bug' }, 'type'],
    ['an unknown assignee', { comment: { body: 'x' }, assignee_id: 999999 }, 'assignee'],
    ['an end-user assignee', { comment: { body: 'x' }, assignee_email: CUSTOMER }, 'assignee'],
    ['an unknown assignee email', { comment: { body: 'x' }, assignee_email: 'ghost@acme.test' }, 'assignee'],
    ['an unknown requester', { comment: { body: 'x' }, requester_id: 999999 }, 'requester'],
    [
      'a requester without a name',
      { comment: { body: 'x' }, requester: { email: 'anon@example.test' } },
      'requester',
    ],
    ['an unknown organization', { comment: { body: 'x' }, organization_id: 1 }, 'organization_id'],
    ['a bad due_at', { comment: { body: 'x' }, due_at: 'tomorrow' }, 'due_at'],
  ])('answers 422 RecordInvalid for %s', async (_, ticket, field) => {
    const response = await createTicket(ticket)
    expect(response.status).toBe(422)
    expect(response.body).toMatchObject({ error: 'RecordInvalid', description: 'Record validation errors' })
    expect(response.body.details[field]).toEqual([
      expect.objectContaining({ description: expect.any(String) }),
    ])
  })

  it('answers 400 for malformed JSON and for a body without a ticket', async () => {
    const malformed = await call(`${acme}/api/v2/tickets.json`, {
      auth,
      body: '{"ticket":',
      headers: { 'content-type': 'application/json' },
    })
    expect(malformed.status).toBe(400)
    expect(malformed.body).toEqual({
      error: 'Unprocessable Entity',
      description: 'Server could not parse JSON',
    })
    const rootless = await call(`${acme}/api/v2/tickets.json`, { auth, json: { subject: 'x' } })
    expect(rootless.status).toBe(400)
  })
})

describe('show, update, delete', () => {
  it('shows a ticket with or without .json, and 404s a missing one', async () => {
    const created = (await createTicket({ comment: { body: 'x' } })).body.ticket
    for (const suffix of ['', '.json']) {
      const response = await call(`${acme}/api/v2/tickets/${created.id}${suffix}`, { auth })
      expect(response.status).toBe(200)
      expect(response.body.ticket.id).toBe(created.id)
    }
    const missing = await call(`${acme}/api/v2/tickets/987654.json`, { auth })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ error: 'RecordNotFound', description: 'Not found' })
  })

  it('adds an internal note and a public reply through PUT (200 {ticket, audit})', async () => {
    const created = (await createTicket({ subject: 'notes', comment: { body: 'first' } })).body.ticket
    const note = await call(`${acme}/api/v2/tickets/${created.id}.json`, {
      method: 'PUT',
      auth,
      json: { ticket: { comment: { body: 'internal', public: false } } },
    })
    expect(note.status).toBe(200)
    expect(note.body.audit.events[0]).toMatchObject({ type: 'Comment', body: 'internal', public: false })
    const reply = await call(`${acme}/api/v2/tickets/${created.id}.json`, {
      method: 'PUT',
      auth,
      json: { ticket: { comment: { body: 'public reply' }, status: 'pending', assignee_id: ids.agent } },
    })
    expect(reply.status).toBe(200)
    expect(reply.body.ticket).toMatchObject({ status: 'pending', assignee_id: ids.agent })
    const changes = reply.body.audit.events.filter((e: { type: string }) => e.type === 'Change')
    expect(changes).toContainEqual(
      expect.objectContaining({ field_name: 'status', value: 'pending', previous_value: 'new' }),
    )

    const comments = await call(`${acme}/api/v2/tickets/${created.id}/comments.json`, { auth })
    expect(comments.status).toBe(200)
    expect(comments.body.comments.map((c: { body: string; public: boolean }) => [c.body, c.public])).toEqual([
      ['first', true],
      ['internal', false],
      ['public reply', true],
    ])
    const first = comments.body.comments[0]
    expect(first).toMatchObject({
      type: 'Comment',
      author_id: ids.agent,
      plain_body: 'first',
      attachments: [],
      via: { channel: 'api' },
    })
    expect(first.html_body).toContain('<p dir="auto">first</p>')
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining([
        'id',
        'type',
        'author_id',
        'body',
        'html_body',
        'plain_body',
        'public',
        'attachments',
        'audit_id',
        'via',
        'metadata',
        'created_at',
      ]),
    )
    const descending = await call(`${acme}/api/v2/tickets/${created.id}/comments?sort_order=desc`, { auth })
    expect(descending.body.comments[0].body).toBe('public reply')
    const cursorDescending = await call(
      `${acme}/api/v2/tickets/${created.id}/comments?page[size]=2&sort=-created_at`,
      { auth },
    )
    expect(cursorDescending.body.comments.map((c: { body: string }) => c.body)).toEqual([
      'public reply',
      'internal',
    ])
  })

  it('supports additional_tags and remove_tags', async () => {
    const created = (await createTicket({ comment: { body: 'x' }, tags: ['a', 'b'] })).body.ticket
    const updated = await call(`${acme}/api/v2/tickets/${created.id}`, {
      method: 'PUT',
      auth,
      json: { ticket: { additional_tags: ['c'], remove_tags: 'a' } },
    })
    expect(updated.body.ticket.tags).toEqual(['b', 'c'])
  })

  it('assigns the solving agent when a ticket is solved unassigned', async () => {
    const created = (await createTicket({ comment: { body: 'x' } })).body.ticket
    const solved = await call(`${acme}/api/v2/tickets/${created.id}`, {
      method: 'PUT',
      auth,
      json: { ticket: { status: 'solved' } },
    })
    expect(solved.body.ticket).toMatchObject({ status: 'solved', assignee_id: ids.agent })
  })

  it('refuses any update to a closed ticket (422)', async () => {
    const created = (await createTicket({ comment: { body: 'x' }, assignee_id: ids.agent })).body.ticket
    const closed = await call(`${acme}/api/v2/tickets/${created.id}`, {
      method: 'PUT',
      auth,
      json: { ticket: { status: 'closed' } },
    })
    expect(closed.status).toBe(200)
    for (const ticket of [{ status: 'open' }, { comment: { body: 'again' } }]) {
      const refused = await call(`${acme}/api/v2/tickets/${created.id}`, {
        method: 'PUT',
        auth,
        json: { ticket },
      })
      expect(refused.status).toBe(422)
      expect(refused.body.details.status[0].description).toBe('closed prevents ticket update')
    }
  })

  it('answers 409 for a stale safe update', async () => {
    const created = (await createTicket({ comment: { body: 'x' } })).body.ticket
    const stale = await call(`${acme}/api/v2/tickets/${created.id}`, {
      method: 'PUT',
      auth,
      json: { ticket: { subject: 'y', safe_update: true, updated_stamp: '2000-01-01T00:00:00Z' } },
    })
    expect(stale.status).toBe(409)
    const fresh = await call(`${acme}/api/v2/tickets/${created.id}`, {
      method: 'PUT',
      auth,
      json: { ticket: { subject: 'y', safe_update: true, updated_stamp: created.updated_at } },
    })
    expect(fresh.status).toBe(200)
  })

  it('deletes with 204 and then 404s', async () => {
    const created = (await createTicket({ comment: { body: 'x' } })).body.ticket
    const deleted = await call(`${acme}/api/v2/tickets/${created.id}.json`, { method: 'DELETE', auth })
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expect((await call(`${acme}/api/v2/tickets/${created.id}.json`, { auth })).status).toBe(404)
    expect((await call(`${acme}/api/v2/tickets/${created.id}.json`, { method: 'DELETE', auth })).status).toBe(
      404,
    )
  })

  it('lists audits of a ticket', async () => {
    const audits = await call(`${acme}/api/v2/tickets/1/audits.json`, { auth })
    expect(audits.status).toBe(200)
    expect(audits.body.audits.length).toBe(3)
    expect(audits.body.count).toBe(3)
  })
})

describe('unknown endpoints', () => {
  it.each([
    ['GET', '/api/v2/nothing'],
    ['GET', '/api/v2/tickets/abc'],
    ['PATCH', '/api/v2/tickets/1'],
    // Zendesk has no comment-creation endpoint; comments are added through PUT /tickets/{id}.
    ['POST', '/api/v2/tickets/1/comments'],
    ['POST', '/api/v2/tickets/1/comments.json'],
    ['GET', '/whatever'],
  ])('%s %s → 404 InvalidEndpoint', async (method, path) => {
    const response = await call(`${acme}${path}`, {
      method,
      auth,
      json: method === 'GET' ? undefined : { comment: { body: 'x' } },
    })
    expect(response.status).toBe(404)
    expect(response.body).toEqual({ error: 'InvalidEndpoint', description: 'Not found' })
  })

  it('answers an unknown account with Zendesk’s “no help desk” 404', async () => {
    const response = await call(`${sandbox.base('nosuchco')}/api/v2/tickets.json`, { auth })
    expect(response.status).toBe(404)
    expect(response.body.error.title).toBe('No help desk at nosuchco.zendesk.com')
  })
})
