import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  homeFormToken,
  postForm,
  startReceiver,
  submitHomeForm,
  unreadableRefusal,
  type Receiver,
} from '../kit/test-support.ts'
import { TICKET_EVENT_TYPES } from './events/payloads.ts'
import { ADMIN, AGENT, bearer, call, CUSTOMER, startTestSandbox, type TestSandbox } from './test-support.ts'

// The home page (docs/sandbox.md "Home pages"): a customer opens a ticket and an agent changes it
// through plain forms; the API sees both and the account's webhook is sent each event.

let sandbox: TestSandbox
let receiver: Receiver
let base: string
let auth: string
const CARLA = 1003
const ALAN = 1002

beforeAll(async () => {
  sandbox = await startTestSandbox()
  receiver = await startReceiver()
  base = sandbox.base('acme')
  auth = bearer(await sandbox.token('acme', ADMIN))
  await sandbox.control('/delivery-settings', { method: 'PUT', body: { retry_delays_ms: [10, 10, 10] } })
  const created = await call(`${base}/api/v2/webhooks`, {
    auth,
    json: {
      webhook: {
        name: 'home page',
        endpoint: receiver.url,
        http_method: 'POST',
        request_format: 'json',
        status: 'active',
        subscriptions: TICKET_EVENT_TYPES,
      },
    },
  })
  expect(created.status).toBe(201)
})
afterAll(async () => {
  await receiver?.close()
  await sandbox?.close()
})

/** The event types delivered since `mark`, once every delivery has settled, each delivered. */
async function eventsSince(mark: number): Promise<Array<{ type: string; detail: any; event: any }>> {
  const { body } = await sandbox.control('/deliveries?settled=1&timeout_ms=10000')
  expect(body.settled).toBe(true)
  expect(body.deliveries.every((d: any) => d.state === 'delivered')).toBe(true)
  return receiver.received.slice(mark).map((r) => JSON.parse(r.body))
}

const submit = (fields: Record<string, string>) => submitHomeForm(sandbox.url, fields)

describe('the Zendesk home page', () => {
  let mark: number
  beforeEach(() => {
    mark = receiver.received.length
  })

  it('lists each account with its people and tickets, and the two forms', async () => {
    const answer = await fetch(sandbox.url)
    expect(answer.status).toBe(200)
    const html = await answer.text()
    for (const text of ['acme', 'globex', 'Carla Customer', 'Alan Agent', 'Printer on fire', 'end-user'])
      expect(html).toContain(text)
    expect(html).toContain('id="open-acme"')
    expect(html).toContain('id="change-acme"')
    expect(html).toContain(`<option value="${ALAN}" selected>`)
  })

  it('a customer opens a ticket: the API has it with Carla as requester, and ticket.created is delivered', async () => {
    const done = await submit({
      step: 'open',
      account: 'acme',
      customer: String(CARLA),
      subject: 'My screen is blank',
      body: 'Since this morning.',
    })
    expect(done.status).toBe(303)
    expect(done.page).toMatch(/Carla Customer opened ticket #(\d+) “My screen is blank” in acme\./)
    const id = Number(/opened ticket #(\d+)/.exec(done.page)![1])
    const ticket = (await call(`${base}/api/v2/tickets/${id}`, { auth })).body.ticket
    expect(ticket).toMatchObject({
      subject: 'My screen is blank',
      description: 'Since this morning.',
      requester_id: CARLA,
      submitter_id: CARLA,
      status: 'new',
      via: { channel: 'web' },
    })
    const [created, ...rest] = await eventsSince(mark)
    expect(rest).toEqual([])
    expect(created!.type).toBe('zen:event-type:ticket.created')
    expect(created!.detail).toMatchObject({ id: String(id), requester_id: String(CARLA) })
  })

  it('an agent changes status, priority, assignee and comments: the API and the events agree', async () => {
    const done = await submit({
      step: 'change',
      account: 'acme',
      agent: String(ALAN),
      ticket: '2',
      status: 'pending',
      priority: 'urgent',
      assignee: String(ALAN),
      comment: 'Looking into it',
    })
    expect(done.status).toBe(303)
    expect(done.page).toContain(
      'Alan Agent updated ticket #2: status pending, priority urgent, assignee Alan Agent, a public reply.',
    )
    const ticket = (await call(`${base}/api/v2/tickets/2`, { auth })).body.ticket
    expect(ticket).toMatchObject({ status: 'pending', priority: 'urgent', assignee_id: ALAN })
    const comments = (await call(`${base}/api/v2/tickets/2/comments`, { auth })).body.comments
    expect(comments.at(-1)).toMatchObject({ body: 'Looking into it', public: true, author_id: ALAN })
    const types = (await eventsSince(mark)).map((e) => e.type.replace('zen:event-type:', '')).sort()
    expect(types).toEqual(
      ['agent_assignment_changed', 'comment_added', 'priority_changed', 'status_changed'].map(
        (t) => `ticket.${t}`,
      ),
    )
  })

  it('shows ticket subjects as text, never as markup', async () => {
    const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>'
    const done = await submit({
      step: 'open',
      account: 'acme',
      customer: CUSTOMER,
      subject: hostile,
      body: 'x',
    })
    expect(done.status).toBe(303)
    expect(done.page).not.toContain('<script>alert(1)')
    expect(done.page).not.toContain('<img src=x')
    expect(done.page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })

  const refusals: Array<[string, Record<string, string>, number, RegExp]> = [
    ['an unknown step', { step: 'delete', account: 'acme' }, 400, /step must be open or change/],
    ['no account', { step: 'open', customer: CUSTOMER, subject: 's', body: 'b' }, 400, /account is required/],
    [
      'an unknown account',
      { step: 'open', account: 'nope', subject: 's', body: 'b' },
      404,
      /No account &quot;nope&quot;/,
    ],
    ['no customer', { step: 'open', account: 'acme', subject: 's', body: 'b' }, 400, /customer is required/],
    [
      'an unknown customer',
      { step: 'open', account: 'acme', customer: '999999', subject: 's', body: 'b' },
      404,
      /No customer &quot;999999&quot; in acme/,
    ],
    [
      'a ticket without a subject',
      { step: 'open', account: 'acme', customer: CUSTOMER, body: 'b' },
      400,
      /subject is required/,
    ],
    [
      'a ticket without a description',
      { step: 'open', account: 'acme', customer: CUSTOMER, subject: 's' },
      400,
      /body is required/,
    ],
    [
      'an unknown ticket',
      { step: 'change', account: 'acme', agent: AGENT, ticket: '9999', status: 'open' },
      404,
      /No ticket &quot;9999&quot;/,
    ],
    [
      'a bad status',
      { step: 'change', account: 'acme', agent: AGENT, ticket: '1', status: 'done' },
      400,
      /status must be one of/,
    ],
    [
      'a change of nothing',
      { step: 'change', account: 'acme', agent: AGENT, ticket: '1' },
      400,
      /Nothing to change/,
    ],
    [
      'a customer acting as the agent',
      { step: 'change', account: 'acme', agent: CUSTOMER, ticket: '1', status: 'open' },
      403,
      /Zendesk refused it \(403 Forbidden\): [A-Z][a-z]+ [a-z]/,
    ],
  ]
  it.each(refusals)('refuses %s with a page naming the reason', async (_what, fields, status, reason) => {
    const refused = await submit(fields)
    expect(refused.status).toBe(status)
    expect(refused.location).toBeNull()
    expect(refused.page).toMatch(reason)
    expect(unreadableRefusal(refused.page, sandbox.url)).toEqual([])
  })

  it('refuses a form without the page secret or from another site, and changes nothing', async () => {
    const fields = { step: 'change', account: 'acme', agent: AGENT, ticket: '1', status: 'solved' }
    expect((await postForm(sandbox.url, fields)).status).toBe(403)
    const crossSite = await postForm(
      sandbox.url,
      { ...fields, form_token: await homeFormToken(sandbox.url) },
      { origin: 'http://evil.example' },
    )
    expect(crossSite.status).toBe(403)
    expect(unreadableRefusal(await crossSite.text(), sandbox.url)).toEqual([])
    expect((await call(`${base}/api/v2/tickets/1`, { auth })).body.ticket.status).toBe('open')
  })
})
