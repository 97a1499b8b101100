import nodeZendesk, { type ZendeskClientOptions } from 'node-zendesk'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ADMIN, AGENT, startTestSandbox, type TestSandbox } from '../src/sandboxes/zendesk/test-support.ts'

/**
 * The Zendesk sandbox promises that real Zendesk clients work against it unchanged apart from
 * the base URL. This drives the published `node-zendesk` client (v6) over real HTTP: its only
 * sandbox-specific option is `endpointUri`, which replaces `https://{subdomain}.zendesk.com/api/v2`.
 *
 * node-zendesk is CommonJS (`module.exports = …`), so Node's ESM loader exposes it as the default
 * export only; its .d.ts files still describe the shapes.
 */

type Client = ReturnType<typeof nodeZendesk.createClient>
/** node-zendesk's Ticket type has no write-only `comment`, so update bodies are cast to it. */
type TicketBody = Parameters<Client['tickets']['update']>[1]
/**
 * What single-resource calls resolve to at runtime. The library's .d.ts declares some of them
 * differently (e.g. `tickets.update` as `{result, response: {ticket, audit}}`), hence the cast.
 */
interface Reply {
  response: { status: number; headers: { get(name: string): string | null } }
  result: any
}
const reply = async (call: Promise<unknown>): Promise<Reply> => (await call) as Reply

let sandbox: TestSandbox
let endpointUri: string
/** The agent, with an OAuth bearer token. */
let oauth: Client
/** The admin, with an API token (Basic `admin@acme.test/token:…`). */
let apiToken: Client
let agentId: number
let adminId: number

/** `throwOriginalException` keeps the error's `statusCode` and parsed body (`result`). */
function client(options: ZendeskClientOptions) {
  return nodeZendesk.createClient({ endpointUri, throwOriginalException: true, ...options })
}

interface LoggedRequest {
  method: string
  path: string
  query: Record<string, string | string[]>
  status: number
  headers: Record<string, string>
}

/** API requests the sandbox saw since the last `beforeEach`, oldest first. */
async function apiRequests(): Promise<LoggedRequest[]> {
  const { body } = await sandbox.control('/requests?account=acme&limit=100000')
  return (body.requests as LoggedRequest[]).filter((r) => r.path.includes('/api/v2/'))
}

/** Awaits a call that should fail and returns what node-zendesk threw. */
async function failure(
  promise: Promise<unknown>,
): Promise<{ statusCode?: number; result?: any; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(Error)
  return error as { statusCode?: number; result?: any; message: string }
}

beforeAll(async () => {
  sandbox = await startTestSandbox()
  endpointUri = `${sandbox.base('acme')}/api/v2`
  oauth = client({ token: await sandbox.token('acme', AGENT), oauth: true })
  const minted = await sandbox.control('/accounts/acme/api_tokens', { body: { description: 'node-zendesk' } })
  expect(minted.status).toBe(201)
  apiToken = client({ username: ADMIN, token: minted.body.api_token.token as string })
  agentId = (await reply(oauth.users.me())).result.id
  adminId = (await reply(apiToken.users.me())).result.id
})
afterAll(() => sandbox?.close())
beforeEach(async () => {
  await sandbox.control('/requests', { method: 'DELETE' })
})

describe('node-zendesk against the Zendesk sandbox', () => {
  it('users.me answers the caller for an OAuth bearer token and for an API token', async () => {
    const viaOAuth = await reply(oauth.users.me())
    expect(viaOAuth.result).toMatchObject({
      id: agentId,
      email: AGENT,
      role: 'agent',
      url: `${endpointUri}/users/${agentId}.json`,
    })
    // The client reads headers through its response adapter; the rate-limit ones are there.
    expect(viaOAuth.response.headers.get('x-rate-limit')).toBe('700')

    const viaApiToken = await apiToken.users.me()
    expect(viaApiToken.result).toMatchObject({ id: adminId, email: ADMIN, role: 'admin' })

    const seen = await apiRequests()
    expect(seen.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/zendesk/acme/api/v2/users/me.json', 200],
      ['GET', '/zendesk/acme/api/v2/users/me.json', 200],
    ])
    // The request log keeps only the scheme of Authorization: one call each way.
    expect(seen.map((r) => r.headers.authorization)).toEqual(['Bearer [redacted]', 'Basic [redacted]'])
  })

  it('creates, shows and comments on a ticket, then lists its comments', async () => {
    const created = await reply(
      oauth.tickets.create({
        ticket: {
          subject: 'Printer jammed',
          comment: { body: 'Paper everywhere.' },
          priority: 'high',
          tags: ['node-zendesk'],
        },
      }),
    )
    expect(created.response.status).toBe(201)
    const ticket = created.result
    expect(ticket).toMatchObject({
      subject: 'Printer jammed',
      description: 'Paper everywhere.',
      priority: 'high',
      status: 'new',
      requester_id: agentId,
      submitter_id: agentId,
      tags: ['node-zendesk'],
      url: `${endpointUri}/tickets/${ticket.id}.json`,
    })

    const shown = await oauth.tickets.show(ticket.id)
    expect(shown.result).toMatchObject({
      id: ticket.id,
      subject: 'Printer jammed',
      description: 'Paper everywhere.',
    })

    // Zendesk adds comments through a ticket update; the admin writes an internal note.
    const note = {
      ticket: { comment: { body: 'Ordered a new roller.', public: false }, status: 'pending' },
    } as TicketBody
    const updated = await reply(apiToken.tickets.update(ticket.id, note))
    expect(updated.response.status).toBe(200)
    expect(updated.result).toMatchObject({ id: ticket.id, status: 'pending' })

    const comments = await oauth.tickets.getComments(ticket.id)
    expect(comments.map((c: any) => [c.body, c.public, c.author_id])).toEqual([
      ['Paper everywhere.', true, agentId],
      ['Ordered a new roller.', false, adminId],
    ])

    expect((await apiRequests()).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /zendesk/acme/api/v2/tickets.json 201',
      `GET /zendesk/acme/api/v2/tickets/${ticket.id}.json 200`,
      `PUT /zendesk/acme/api/v2/tickets/${ticket.id}.json 200`,
      `GET /zendesk/acme/api/v2/tickets/${ticket.id}/comments.json 200`,
    ])
  })

  it('follows offset next_page links (comments, per_page=1)', async () => {
    const { result } = await reply(
      oauth.tickets.create({ ticket: { subject: 'Paged comments', comment: { body: 'one' } } }),
    )
    const id = result.id as number
    for (const body of ['two', 'three'])
      await oauth.tickets.update(id, { ticket: { comment: { body } } } as TicketBody)
    await sandbox.control('/requests', { method: 'DELETE' })

    const comments = await oauth.tickets.getAll(['tickets', id, 'comments', { per_page: 1 }])
    expect(comments.map((c: any) => c.body)).toEqual(['one', 'two', 'three'])
    expect((await apiRequests()).map((r) => r.query)).toEqual([
      { per_page: '1' },
      { per_page: '1', page: '2' },
      { per_page: '1', page: '3' },
    ])
  })

  it('tickets.list pages with cursors (page[size]=100) and follows links.next to the end', async () => {
    const { body } = await sandbox.control('/accounts/acme')
    const existing = body.account.ticket_count as number
    // One more ticket than a page holds, so the client must fetch a second page.
    const missing = Math.max(0, 101 - existing)
    for (let i = 0; i < missing; i++)
      await oauth.tickets.create({ ticket: { subject: `Bulk ${i}`, comment: { body: 'filler' } } })
    const total = existing + missing
    await sandbox.control('/requests', { method: 'DELETE' })

    const tickets = await oauth.tickets.list()
    const ids = tickets.map((t) => t.id)
    expect(ids).toHaveLength(total)
    expect(new Set(ids).size).toBe(total)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))

    const pages = await apiRequests()
    expect(pages).toHaveLength(2)
    expect(pages.map((r) => [r.path, r.status])).toEqual([
      ['/zendesk/acme/api/v2/tickets.json', 200],
      ['/zendesk/acme/api/v2/tickets.json', 200],
    ])
    expect(pages[0]?.query).toEqual({ 'page[size]': '100' })
    expect(pages[1]?.query).toEqual({ 'page[size]': '100', 'page[after]': expect.any(String) })
  })

  it('searches, counts and pages through search results', async () => {
    const subjects = ['Search me A', 'Search me B', 'Search me C']
    for (const subject of subjects)
      await oauth.tickets.create({ ticket: { subject, comment: { body: 'x' }, tags: ['findme'] } })

    const { result } = await reply(oauth.search.query('type:ticket tags:findme'))
    expect(result.map((r: any) => [r.subject, r.result_type]).sort()).toEqual(
      subjects.map((s) => [s, 'ticket']),
    )

    const { result: counted } = await oauth.search.showResultsCount('type:ticket tags:findme')
    expect(counted).toEqual({ count: 3 })

    await sandbox.control('/requests', { method: 'DELETE' })
    const all = await apiToken.search.getAll([
      'search',
      { query: 'type:ticket tags:findme', sort_by: 'created_at', sort_order: 'asc', per_page: 2 },
    ])
    expect(all.map((r: any) => r.subject)).toEqual(subjects)
    expect((await apiRequests()).map((r) => r.query.page ?? '1')).toEqual(['1', '2'])
  })

  it('shows many users by id and searches users, as node-zendesk asks for them', async () => {
    const { result: many } = await reply(oauth.users.showMany([adminId, agentId]))
    expect(many.map((u: any) => u.id).sort()).toEqual([adminId, agentId].sort())
    const found = await oauth.users.search({ query: 'agent@acme' })
    expect(found.map((u: any) => u.id)).toEqual([agentId])
    expect((await apiRequests()).map((r) => r.path)).toEqual([
      '/zendesk/acme/api/v2/users/show_many.json',
      '/zendesk/acme/api/v2/users/search.json',
    ])
  })

  // Every endpoint of the product's table (test/contracts/zendesk.contract.test.ts) through
  // node-zendesk, reading each field a step's user reads. The OAuth token endpoint is the exception:
  // node-zendesk has no call for `POST /oauth/tokens` (it lives outside /api/v2), so the contract
  // test alone drives it.
  describe('every endpoint the product uses', () => {
    const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

    it('users.me gives the id, name, email and role identify reads', async () => {
      const { result } = await reply(oauth.users.me())
      expect(result).toMatchObject({
        id: agentId,
        email: AGENT,
        role: 'agent',
        name: expect.stringMatching(/\S/),
      })
      expect(result.active).toBe(true)
    })

    it('tickets.create answers the whole ticket: ids, subject, description, status, priority, type, assignee, tags, times, url', async () => {
      const created = await reply(
        oauth.tickets.create({
          ticket: {
            subject: 'Every field',
            comment: { body: 'All of them.' },
            priority: 'urgent',
            type: 'task',
            assignee_email: ADMIN,
          } as any,
        }),
      )
      expect(created.response.status).toBe(201)
      expect(created.response.headers.get('location')).toBe(
        `${endpointUri}/tickets/${created.result.id}.json`,
      )
      const t = created.result
      expect(t).toMatchObject({
        id: expect.any(Number),
        url: `${endpointUri}/tickets/${t.id}.json`,
        subject: 'Every field',
        raw_subject: 'Every field',
        description: 'All of them.',
        status: 'open',
        priority: 'urgent',
        type: 'task',
        requester_id: agentId,
        submitter_id: agentId,
        assignee_id: adminId,
        tags: [],
        due_at: null,
        via: { channel: 'api' },
      })
      expect(t.created_at).toMatch(ISO)
      expect(t.updated_at).toMatch(ISO)
    })

    it('tickets.show with users sideloaded names the requester and assignee', async () => {
      const { result: created } = await reply(
        oauth.tickets.create({
          ticket: { subject: 'Named people', comment: { body: 'Who?' }, assignee_id: adminId } as any,
        }),
      )
      oauth.tickets.setSideLoad(['users'])
      try {
        const shown = await reply(oauth.tickets.show(created.id))
        // node-zendesk maps the sideloaded users onto the ticket, as Get Ticket Info does.
        expect(shown.result).toMatchObject({
          id: created.id,
          subject: 'Named people',
          status: 'open',
          requester_id: agentId,
          assignee_id: adminId,
        })
        expect(shown.result.requester).toMatchObject({ id: agentId, email: AGENT, name: expect.any(String) })
        expect(shown.result.assignee).toMatchObject({ id: adminId, email: ADMIN, name: expect.any(String) })
      } finally {
        oauth.tickets.setSideLoad([])
      }
      expect((await apiRequests()).at(-1)?.query).toEqual({ include: 'users' })
    })

    it('comments come with author, body, html body, visibility, attachments and time, over cursor pages', async () => {
      const { result: created } = await reply(
        oauth.tickets.create({ ticket: { subject: 'Cursor comments', comment: { body: 'first' } } }),
      )
      await apiToken.tickets.update(created.id, {
        ticket: { comment: { body: 'second, internal', public: false } },
      } as TicketBody)
      await sandbox.control('/requests', { method: 'DELETE' })
      const comments = await oauth.tickets.getAll([
        'tickets',
        created.id,
        'comments',
        { page: { size: 1 }, include: 'users' },
      ])
      expect(comments).toHaveLength(2)
      expect(comments.map((c: any) => [c.body, c.public, c.author_id])).toEqual([
        ['first', true, agentId],
        ['second, internal', false, adminId],
      ])
      for (const c of comments) {
        expect(c).toMatchObject({
          id: expect.any(Number),
          type: 'Comment',
          html_body: expect.stringContaining(c.body),
          attachments: [],
        })
        expect(c.created_at).toMatch(ISO)
      }
      const pages = await apiRequests()
      expect(pages.map((r) => r.query['page[size]'])).toEqual(['1', '1'])
      expect(pages[1]?.query['page[after]']).toEqual(expect.any(String))
    })

    it('tickets are listed newest first with sort=-id, as List Tickets asks', async () => {
      const tickets = await oauth.tickets.getAll(['tickets', { sort: '-id' }])
      const ids = tickets.map((t: any) => t.id)
      expect(ids.length).toBeGreaterThan(1)
      expect(ids).toEqual([...ids].sort((a, b) => b - a))
      expect(tickets[0]).toMatchObject({
        id: expect.any(Number),
        subject: expect.any(String),
        status: expect.any(String),
        url: expect.stringContaining('/tickets/'),
      })
    })

    it("search results carry each ticket's fields, newest first, and the count", async () => {
      for (const subject of ['Found 1', 'Found 2'])
        await oauth.tickets.create({
          ticket: { subject, comment: { body: 'x' }, priority: 'low', tags: ['found'] } as any,
        })
      const result = await oauth.search.getAll([
        'search',
        {
          query: 'type:ticket tags:found priority:low',
          sort_by: 'created_at',
          sort_order: 'desc',
          per_page: 100,
        },
      ])
      expect(result.map((r: any) => r.subject)).toEqual(['Found 2', 'Found 1'])
      expect((await oauth.search.showResultsCount('type:ticket tags:found priority:low')).result).toEqual({
        count: 2,
      })
      for (const r of result) {
        expect(r).toMatchObject({
          result_type: 'ticket',
          priority: 'low',
          status: 'new',
          tags: ['found'],
          requester_id: agentId,
          url: expect.stringContaining(`/tickets/${r.id}.json`),
        })
        expect(r.created_at).toMatch(ISO)
      }
    })

    it('tickets.update changes status, priority, tags and assignee and adds a note; the answer shows each', async () => {
      const { result: created } = await reply(
        oauth.tickets.create({
          ticket: { subject: 'To change', comment: { body: 'x' }, assignee_id: adminId } as any,
        }),
      )
      const updated = await reply(
        apiToken.tickets.update(created.id, {
          ticket: {
            status: 'hold',
            priority: 'normal',
            tags: ['changed', 'twice'],
            assignee_id: null,
            comment: { body: 'Parked.', public: false },
          },
        } as unknown as TicketBody),
      )
      expect(updated.response.status).toBe(200)
      expect(updated.result).toMatchObject({
        id: created.id,
        status: 'hold',
        priority: 'normal',
        tags: ['changed', 'twice'],
        assignee_id: null,
      })
      expect(Date.parse(updated.result.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at))
      const comments = await oauth.tickets.getComments(created.id)
      expect(comments.at(-1)).toMatchObject({ body: 'Parked.', public: false, author_id: adminId })
    })

    it('tickets.delete, then a permanent delete from deleted tickets, as Delete Ticket does', async () => {
      const { result: created } = await reply(
        oauth.tickets.create({ ticket: { subject: 'To delete', comment: { body: 'x' } } }),
      )
      await oauth.tickets.delete(created.id)
      expect((await failure(oauth.tickets.show(created.id))).statusCode).toBe(404)
      // node-zendesk has no call for deleted tickets; its generic DELETE reaches the endpoint.
      await oauth.search.delete(['deleted_tickets', created.id])
      expect((await apiRequests()).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        'POST /zendesk/acme/api/v2/tickets.json 201',
        `DELETE /zendesk/acme/api/v2/tickets/${created.id}.json 204`,
        `GET /zendesk/acme/api/v2/tickets/${created.id}.json 404`,
        `DELETE /zendesk/acme/api/v2/deleted_tickets/${created.id}.json 204`,
      ])
      // Gone for good: a second permanent delete finds nothing.
      expect((await failure(oauth.search.delete(['deleted_tickets', created.id]))).statusCode).toBe(404)
    })

    it('oauthtokens.revoke("current") revokes the token it is called with, as a disconnect does', async () => {
      const doomed = client({ token: await sandbox.token('acme', AGENT), oauth: true })
      expect((await reply(doomed.users.me())).result.id).toBe(agentId)
      await doomed.oauthtokens.revoke('current' as unknown as number)
      expect((await failure(doomed.users.me())).statusCode).toBe(401)
      expect((await reply(oauth.users.me())).result.id).toBe(agentId)
    })
  })

  it('raises errors carrying the HTTP status and Zendesk body', async () => {
    const missing = await failure(oauth.tickets.show(987654))
    expect(missing.statusCode).toBe(404)
    expect(missing.result).toEqual({ error: 'RecordNotFound', description: 'Not found' })

    const badBearer = await failure(client({ token: 'not-a-token', oauth: true }).tickets.show(1))
    expect(badBearer.statusCode).toBe(401)
    expect(badBearer.result).toEqual({
      error: 'invalid_token',
      error_description:
        'The access token provided is expired, revoked, malformed or invalid for other reasons.',
    })

    const badApiToken = await failure(client({ username: ADMIN, token: 'wrong' }).tickets.show(1))
    expect(badApiToken.statusCode).toBe(401)
    expect(badApiToken.result).toEqual({ error: "Couldn't authenticate you" })

    // Without throwOriginalException the client wraps the status into its message.
    await expect(
      nodeZendesk.createClient({ endpointUri, token: 'nope', oauth: true }).users.me(),
    ).rejects.toThrow('Zendesk Error (401)')
  })
})
