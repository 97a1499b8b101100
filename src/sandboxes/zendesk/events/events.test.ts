import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startReceiver, type Receiver } from '../../kit/test-support.ts'
import { ADMIN, AGENT, bearer, call, startTestSandbox, type TestSandbox } from '../test-support.ts'
import { TICKET_EVENT_TYPES } from './payloads.ts'
import { webhookSignature } from './signature.ts'

// Ticket events over real HTTP: a webhook subscribed to the five ticket event types on a local
// receiver, tickets changed through the API and as a person through the control API.
let sandbox: TestSandbox
let receiver: Receiver
let auth: string
let base: string
let hook: { id: string }
let secret: string
let agentId: number

const settle = async () => {
  const { body } = await sandbox.control('/deliveries?settled=1&timeout_ms=10000')
  expect(body.settled).toBe(true)
  return body.deliveries
}
const events = (from = 0) =>
  receiver.received.slice(from).map((r) => ({ headers: r.headers, body: r.body, event: JSON.parse(r.body) }))
const act = async (email: string, method: string, path: string, body?: unknown) => {
  const answer = await sandbox.control('/accounts/acme/act', { body: { email, method, path, body } })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body
}

beforeAll(async () => {
  sandbox = await startTestSandbox()
  receiver = await startReceiver()
  base = sandbox.base('acme')
  auth = bearer(await sandbox.token('acme', ADMIN))
  const created = await call(`${base}/api/v2/webhooks`, {
    auth,
    json: {
      webhook: {
        name: 'events',
        endpoint: receiver.url,
        http_method: 'POST',
        request_format: 'json',
        status: 'active',
        subscriptions: TICKET_EVENT_TYPES,
        custom_headers: { 'x-switchyard-account': 'acme' },
      },
    },
  })
  hook = created.body.webhook
  secret = (await call(`${base}/api/v2/webhooks/${hook.id}/signing_secret`, { auth })).body.signing_secret
    .secret
  agentId = (await call(`${base}/api/v2/users/me`, { auth: bearer(await sandbox.token('acme', AGENT)) })).body
    .user.id
  await sandbox.control('/delivery-settings', { method: 'PUT', body: { retry_delays_ms: [10, 10, 10] } })
})
beforeEach(async () => {
  await settle()
  receiver.respond = () => 200
  await sandbox.control('/delivery-faults', { method: 'DELETE' })
})
afterAll(async () => {
  await receiver?.close()
  await sandbox?.close()
})

describe('ticket events', () => {
  let ticketId: number

  it('a new ticket sends ticket.created, signed as Zendesk signs', async () => {
    const mark = receiver.received.length
    const created = await call(`${base}/api/v2/tickets`, {
      auth,
      json: {
        ticket: { subject: 'Printer on fire', comment: { body: 'Smoke everywhere' }, priority: 'high' },
      },
    })
    ticketId = created.body.ticket.id
    await settle()
    const [one, ...rest] = events(mark)
    expect(rest).toEqual([])
    expect(one!.event).toMatchObject({
      type: 'zen:event-type:ticket.created',
      account_id: expect.any(Number),
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      zendesk_event_version: '2022-11-06',
      subject: `zen:ticket:${ticketId}`,
      detail: {
        id: String(ticketId),
        subject: 'Printer on fire',
        description: 'Smoke everywhere',
        status: 'NEW',
        priority: 'HIGH',
        requester_id: expect.any(String),
        actor_id: expect.any(String),
        via: { channel: 'api' },
      },
      event: { current: { status: 'NEW' }, meta: { sequence: { id: expect.any(String), position: 1 } } },
    })
    const h = one!.headers
    expect(h['x-zendesk-webhook-id']).toBe(hook.id)
    expect(h['x-zendesk-webhook-invocation-id']).toMatch(/^\d+$/)
    expect(h['user-agent']).toBe('Zendesk Webhook')
    expect(h['x-switchyard-account']).toBe('acme')
    const timestamp = h['x-zendesk-webhook-signature-timestamp'] as string
    expect(timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(h['x-zendesk-webhook-signature']).toBe(webhookSignature(secret, timestamp, one!.body))
  })

  it('one change by a person in the agent UI sends one event per kind, sharing a sequence', async () => {
    const mark = receiver.received.length
    await act(AGENT, 'PUT', `/api/v2/tickets/${ticketId}.json`, {
      ticket: {
        status: 'pending',
        priority: 'urgent',
        assignee_id: agentId,
        comment: { body: 'Looking', public: false },
      },
    })
    await settle()
    const got = events(mark).map((e) => e.event)
    expect(got.map((e) => e.type).sort()).toEqual([
      'zen:event-type:ticket.agent_assignment_changed',
      'zen:event-type:ticket.comment_added',
      'zen:event-type:ticket.priority_changed',
      'zen:event-type:ticket.status_changed',
    ])
    expect(new Set(got.map((e) => e.event.meta.sequence.id)).size).toBe(1)
    const byType = Object.fromEntries(got.map((e) => [e.type.replace('zen:event-type:ticket.', ''), e]))
    expect(byType.status_changed.event).toMatchObject({ current: 'PENDING', previous: 'NEW' })
    expect(byType.priority_changed.event).toMatchObject({ current: 'URGENT', previous: 'HIGH' })
    expect(byType.agent_assignment_changed.event).toMatchObject({ current: agentId, previous: null })
    expect(byType.comment_added.event.comment).toEqual({
      id: expect.any(String),
      body: 'Looking',
      is_public: false,
      author: { id: String(agentId), is_staff: true, name: 'Alan Agent' },
    })
    expect(byType.status_changed.detail).toMatchObject({
      actor_id: String(agentId),
      assignee_id: String(agentId),
      status: 'PENDING',
      priority: 'URGENT',
    })
  })

  it('a write that changes nothing sends nothing; a webhook not subscribed to a type gets none of it', async () => {
    const narrow = (
      await call(`${base}/api/v2/webhooks`, {
        auth,
        json: {
          webhook: {
            name: 'narrow',
            endpoint: `${receiver.url}/narrow`,
            http_method: 'POST',
            request_format: 'json',
            subscriptions: ['zen:event-type:ticket.priority_changed'],
          },
        },
      })
    ).body.webhook
    const mark = receiver.received.length
    await call(`${base}/api/v2/tickets/${ticketId}`, {
      method: 'PUT',
      auth,
      json: { ticket: { status: 'pending' } },
    })
    await call(`${base}/api/v2/tickets/${ticketId}`, {
      method: 'PUT',
      auth,
      json: { ticket: { status: 'open' } },
    })
    await settle()
    expect(
      events(mark).map((e) => [e.event.type, receiver.received.find((r) => r.body === e.body)!.path]),
    ).toEqual([['zen:event-type:ticket.status_changed', '/hook']])
    await call(`${base}/api/v2/webhooks/${narrow.id}`, { method: 'DELETE', auth })
  })
})

describe('deliveries', () => {
  const change = (priority: string) =>
    call(`${base}/api/v2/tickets/1`, { method: 'PUT', auth, json: { ticket: { priority } } })

  it('retries a 5xx with the same invocation id, re-signed; a 4xx is not retried', async () => {
    receiver.respond = (_r, i) => (i === receiver.received.length - 1 && attempts++ < 2 ? 503 : 200)
    let attempts = 0
    const mark = receiver.received.length
    await change('low')
    const [delivery] = (await settle()).filter((d: any) => d.webhook_id === hook.id).slice(-1)
    expect(delivery.state).toBe('delivered')
    expect(delivery.attempts.map((a: any) => a.status)).toEqual([503, 503, 200])
    const ids = new Set(
      receiver.received.slice(mark).map((r) => r.headers['x-zendesk-webhook-invocation-id']),
    )
    expect(ids.size).toBe(1)

    receiver.respond = () => 400
    await change('normal')
    const [refused] = (await settle()).slice(-1)
    expect(refused).toMatchObject({ state: 'failed', attempts: [{ status: 400 }] })
  })

  it('a receiver that cannot be reached is tried again after each delay, then the invocation fails', async () => {
    const closed = await startReceiver()
    await closed.close()
    const dead = (
      await call(`${base}/api/v2/webhooks`, {
        auth,
        json: {
          webhook: {
            name: 'dead',
            endpoint: closed.url,
            http_method: 'POST',
            request_format: 'json',
            subscriptions: ['zen:event-type:ticket.priority_changed'],
          },
        },
      })
    ).body.webhook
    await change('urgent')
    const [failed] = (await settle()).filter((d: any) => d.webhook_id === dead.id)
    expect(failed.state).toBe('failed')
    expect(failed.attempts).toHaveLength(4)
    expect(failed.attempts.every((a: any) => a.status === null && a.error)).toBe(true)
    await call(`${base}/api/v2/webhooks/${dead.id}`, { method: 'DELETE', auth })
  })

  it('injected faults: a duplicate, a bad signature, a stale timestamp, a failure that is retried', async () => {
    const faults = [
      { kind: 'duplicate', times: 1 },
      { kind: 'bad_signature', times: 1 },
      { kind: 'stale_timestamp', times: 1 },
      { kind: 'fail', status: 500, times: 1 },
    ]
    for (const fault of faults)
      expect((await sandbox.control('/delivery-faults', { body: fault })).status).toBe(201)
    expect((await sandbox.control('/delivery-faults')).body.faults).toHaveLength(4)

    let mark = receiver.received.length
    await change('high')
    await settle()
    const dup = receiver.received.slice(mark)
    expect(dup).toHaveLength(2)
    expect(dup[0]!.body).toBe(dup[1]!.body)
    expect(dup[0]!.headers['x-zendesk-webhook-invocation-id']).toBe(
      dup[1]!.headers['x-zendesk-webhook-invocation-id'],
    )

    mark = receiver.received.length
    await change('low')
    await settle()
    const [bad] = receiver.received.slice(mark)
    expect(bad!.headers['x-zendesk-webhook-signature']).not.toBe(
      webhookSignature(secret, bad!.headers['x-zendesk-webhook-signature-timestamp'] as string, bad!.body),
    )

    mark = receiver.received.length
    await change('high')
    await settle()
    const [stale] = receiver.received.slice(mark)
    const ts = stale!.headers['x-zendesk-webhook-signature-timestamp'] as string
    expect(Date.now() - Date.parse(ts)).toBeGreaterThan(300_000)
    expect(stale!.headers['x-zendesk-webhook-signature']).toBe(webhookSignature(secret, ts, stale!.body))

    await change('low')
    const [failed] = (await settle()).slice(-1)
    expect(failed.attempts.map((a: any) => a.status)).toEqual([500, 200])
    expect((await sandbox.control('/delivery-faults')).body.faults).toEqual([])
  })

  it('the invocation log is read through the API; an inactive webhook is sent nothing', async () => {
    const list = await call(`${base}/api/v2/webhooks/${hook.id}/invocations`, { auth })
    expect(list.status).toBe(200)
    const [latest] = list.body.invocations
    expect(latest).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      status: 'success',
      latest_completion_status: 200,
      event_type: 'zen:event-type:ticket.priority_changed',
    })
    const attempts = await call(`${base}/api/v2/webhooks/${hook.id}/invocations/${latest.id}/attempts`, {
      auth,
    })
    expect(attempts.body.attempts.map((a: any) => a.response.status)).toEqual([500, 200])
    expect((await call(`${base}/api/v2/webhooks/nope/invocations`, { auth })).status).toBe(404)

    await call(`${base}/api/v2/webhooks/${hook.id}`, {
      method: 'PATCH',
      auth,
      json: { webhook: { status: 'inactive' } },
    })
    const mark = receiver.received.length
    await change('urgent')
    await settle()
    expect(receiver.received.length).toBe(mark)
    await call(`${base}/api/v2/webhooks/${hook.id}`, {
      method: 'PATCH',
      auth,
      json: { webhook: { status: 'active' } },
    })
  })

  it('refuses bad control input naming the field', async () => {
    expect(
      (await sandbox.control('/delivery-faults', { body: { kind: 'explode' } })).body.description,
    ).toMatch(/kind must be one of/)
    expect(
      (await sandbox.control('/delivery-settings', { method: 'PUT', body: { retry_delays_ms: [-1] } }))
        .status,
    ).toBe(400)
    expect(
      (
        await sandbox.control('/accounts/acme/act', {
          body: { email: 'nobody@acme.test', path: '/api/v2/tickets' },
        })
      ).body.description,
    ).toMatch(/email or user_id/)
    expect(
      (await sandbox.control('/accounts/acme/act', { body: { email: AGENT, path: '/tickets' } })).body
        .description,
    ).toMatch(/path must start/)
    const forbidden = await act('customer@acme.test', 'PUT', '/api/v2/tickets/1', {
      ticket: { status: 'open' },
    })
    expect(forbidden.status).toBe(403)
  })
})
