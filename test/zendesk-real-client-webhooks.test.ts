import { createHmac } from 'node:crypto'
import nodeZendesk from 'node-zendesk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReceiver, type Receiver } from '../src/sandboxes/kit/test-support.ts'
import { ADMIN, AGENT, startTestSandbox, type TestSandbox } from '../src/sandboxes/zendesk/test-support.ts'

/**
 * The sandbox's event webhooks through the published node-zendesk client (v6), as
 * test/zendesk-real-client.test.ts does for the rest: a webhook subscribed to ticket events, its
 * signing secret read and reset, ticket changes delivered signed, and the invocation log.
 */
type Client = ReturnType<typeof nodeZendesk.createClient>
interface Reply {
  response: { status: number }
  result: any
}
const reply = async (call: Promise<unknown>): Promise<Reply> => (await call) as Reply

let sandbox: TestSandbox
let receiver: Receiver
let admin: Client
let agent: Client

const sign = (secret: string, timestamp: string, body: string) =>
  createHmac('sha256', secret)
    .update(timestamp + body)
    .digest('base64')
const settled = async () =>
  expect((await sandbox.control('/deliveries?settled=1&timeout_ms=10000')).body.settled).toBe(true)

beforeAll(async () => {
  sandbox = await startTestSandbox()
  receiver = await startReceiver()
  const endpointUri = `${sandbox.base('acme')}/api/v2`
  const minted = await sandbox.control('/accounts/acme/api_tokens', { body: { description: 'node-zendesk' } })
  admin = nodeZendesk.createClient({
    endpointUri,
    throwOriginalException: true,
    username: ADMIN,
    token: minted.body.api_token.token as string,
  })
  agent = nodeZendesk.createClient({
    endpointUri,
    throwOriginalException: true,
    token: await sandbox.token('acme', AGENT),
    oauth: true,
  })
})
afterAll(async () => {
  await receiver?.close()
  await sandbox?.close()
})

describe("node-zendesk and the sandbox's event webhooks", () => {
  it('creates a webhook for ticket events, reads its secret, and gets each change signed with it', async () => {
    const created = await reply(
      admin.webhooks.create({
        webhook: {
          name: 'node-zendesk events',
          endpoint: receiver.url,
          http_method: 'POST',
          request_format: 'json',
          status: 'active',
          subscriptions: ['zen:event-type:ticket.created', 'zen:event-type:ticket.priority_changed'],
        },
      }),
    )
    const hook = created.result
    expect(hook).toMatchObject({
      id: expect.any(String),
      subscriptions: ['zen:event-type:ticket.created', 'zen:event-type:ticket.priority_changed'],
    })
    const secret = (await reply(admin.webhooks.getSigningSecret(hook.id))).result.signing_secret
      .secret as string

    const ticket = (
      await reply(
        agent.tickets.create({
          ticket: { subject: 'Webhook me', comment: { body: 'Hello' }, priority: 'low' },
        } as never),
      )
    ).result
    await reply(agent.tickets.update(ticket.id, { ticket: { priority: 'high' } } as never))
    await settled()
    const got = receiver.received.map((r) => ({ event: JSON.parse(r.body), r }))
    expect(got.map((g) => g.event.type)).toEqual([
      'zen:event-type:ticket.created',
      'zen:event-type:ticket.priority_changed',
    ])
    for (const { r } of got) {
      const timestamp = r.headers['x-zendesk-webhook-signature-timestamp'] as string
      expect(r.headers['x-zendesk-webhook-signature']).toBe(sign(secret, timestamp, r.body))
    }
    expect(got[1]!.event).toMatchObject({
      subject: `zen:ticket:${ticket.id}`,
      event: { previous: 'LOW', current: 'HIGH' },
      detail: { id: String(ticket.id) },
    })

    // The invocation log, as the client lists it.
    const invocations = (await reply(admin.webhooks.listInvocations(hook.id))).result
    expect(invocations.invocations).toHaveLength(2)
    expect(invocations.invocations[0]).toMatchObject({
      status: 'success',
      latest_completion_status: 200,
      event_type: 'zen:event-type:ticket.priority_changed',
    })
    const attempts = (
      await reply(admin.webhooks.listInvocationAttempts(hook.id, invocations.invocations[0].id))
    ).result
    expect(attempts.attempts).toEqual([
      expect.objectContaining({ status: 'success', response: { status: 200 } }),
    ])

    // A reset secret signs the next delivery; a deleted webhook gets nothing.
    const reset = (await reply(admin.webhooks.resetSigningSecret(hook.id))).result.signing_secret
      .secret as string
    expect(reset).not.toBe(secret)
    await reply(agent.tickets.update(ticket.id, { ticket: { priority: 'urgent' } } as never))
    await settled()
    const last = receiver.received.at(-1)!
    expect(last.headers['x-zendesk-webhook-signature']).toBe(
      sign(reset, last.headers['x-zendesk-webhook-signature-timestamp'] as string, last.body),
    )
    await admin.webhooks.delete(hook.id).catch((e: { statusCode?: number }) => expect(e.statusCode).toBe(204))
    const count = receiver.received.length
    await reply(agent.tickets.update(ticket.id, { ticket: { priority: 'low' } } as never))
    await settled()
    expect(receiver.received.length).toBe(count)
  })
})
