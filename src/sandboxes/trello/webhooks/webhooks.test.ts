import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from '../seed.ts'
import {
  call,
  SECRET,
  settledDeliveries,
  startReceiver,
  startTestSandbox,
  type Receiver,
  type TestSandbox,
} from '../test-support.ts'
import { webhookSignature } from './signature.ts'

let sandbox: TestSandbox
let receiver: Receiver
let token: string

const { board, cards, lists, members } = SEED
const FAST_RETRIES = { retry_delays_ms: [10, 20, 30] }

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
  await sandbox.control('/delivery-settings', { method: 'PUT', body: FAST_RETRIES })
  token = await sandbox.token('ada')
  receiver = await startReceiver()
})
afterEach(() => receiver.close())

const api = (path: string, init?: Parameters<TestSandbox['api']>[2]) => sandbox.api(path, token, init)
const posts = () => receiver.received.filter((r) => r.method === 'POST')

async function hook(idModel: string, callbackURL = receiver.url) {
  const answer = await api('/1/webhooks', { form: { callbackURL, idModel, description: 'test hook' } })
  expect(answer.status).toBe(200)
  return answer.body
}

describe('the X-Trello-Webhook signature', () => {
  it('matches a fixed vector (computed independently with openssl)', () => {
    const body = '{"action":{"type":"commentCard"},"model":{"id":"659200805eed000000000010"}}'
    expect(webhookSignature(SECRET, body, 'https://example.com/trello/hook')).toBe(
      'WnOPaUV0to0M8Ak9OFWrH1UaB7w=',
    )
  })
})

describe('creating webhooks', () => {
  it('sends HEAD to the callbackURL first and answers the webhook object', async () => {
    const created = await hook(board.id)
    expect(receiver.received[0]).toMatchObject({ method: 'HEAD', path: '/hook' })
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      description: 'test hook',
      idModel: board.id,
      callbackURL: receiver.url,
      active: true,
      consecutiveFailures: 0,
      firstConsecutiveFailDate: null,
    })
    expect((await api(`/1/webhooks/${created.id}`)).body).toEqual(created)
    expect((await api(`/1/tokens/${token}/webhooks`)).body).toEqual([created])
  })

  it('refuses when the HEAD check does not get a 200', async () => {
    receiver.respond = () => 404
    const refused = await api('/1/webhooks', { form: { callbackURL: receiver.url, idModel: board.id } })
    expect(refused.status).toBe(400)
    expect(refused.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(refused.text).toBe(`URL (${receiver.url}) did not return 200 status code, got 404`)
    receiver.respond = () => 204
    expect(
      (await api('/1/webhooks', { form: { callbackURL: receiver.url, idModel: board.id } })).text,
    ).toMatch(/got 204$/)

    const closed = await startReceiver()
    await closed.close()
    const unreachable = await api('/1/webhooks', { form: { callbackURL: closed.url, idModel: board.id } })
    expect(unreachable.status).toBe(400)
    expect(unreachable.text).toMatch(
      /^URL \(http:\/\/127\.0\.0\.1:\d+\/hook\) did not return 200 status code, got ECONNREFUSED$/,
    )
    expect((await api(`/1/tokens/${token}/webhooks`)).body).toEqual([])
  })

  it.each([
    [{ idModel: board.id }, 'invalid value for callbackURL'],
    [{ callbackURL: 'not a url', idModel: board.id }, 'invalid value for callbackURL'],
    [{ callbackURL: 'http://127.0.0.1:1/x' }, 'invalid value for idModel'],
    [{ callbackURL: 'http://127.0.0.1:1/x', idModel: '0'.repeat(24) }, 'invalid value for idModel'],
  ])('refuses %j', async (form, text) => {
    const answer = await api('/1/webhooks', { form: form as Record<string, string> })
    expect(answer.status).toBe(400)
    expect(answer.text).toBe(text)
  })

  it('refuses duplicates and works through /1/tokens/{token}/webhooks, read scope is enough', async () => {
    const readOnly = await sandbox.token('ada', { scope: 'read' })
    const created = await sandbox.api(`/1/tokens/${readOnly}/webhooks`, readOnly, {
      json: { callbackURL: receiver.url, idModel: cards.api.id },
    })
    expect(created.status).toBe(200)
    const again = await sandbox.api('/1/webhooks', readOnly, {
      form: { callbackURL: receiver.url, idModel: cards.api.id },
    })
    expect(again.text).toBe('A webhook with that callback, model, and token already exists')
    expect((await sandbox.api(`/1/tokens/${token}/webhooks`, readOnly)).text).toBe('unauthorized token')
    expect((await api(`/1/webhooks/${created.body.id}`)).text).toBe('unauthorized permission requested')
    const deleted = await sandbox.api(`/1/tokens/${readOnly}/webhooks/${created.body.id}`, readOnly, {
      method: 'DELETE',
    })
    expect(deleted.body).toEqual({ _value: null })
    expect((await sandbox.api(`/1/tokens/${readOnly}/webhooks`, readOnly)).body).toEqual([])
  })

  it('PUT updates fields and re-checks a new callbackURL; DELETE removes it', async () => {
    const created = await hook(board.id)
    const updated = await api(`/1/webhooks/${created.id}`, {
      method: 'PUT',
      form: { description: 'renamed', active: 'false' },
    })
    expect(updated.body).toMatchObject({ description: 'renamed', active: false })
    receiver.respond = () => 500
    const moved = await api(`/1/webhooks/${created.id}`, {
      method: 'PUT',
      form: { callbackURL: `${receiver.url}/v2` },
    })
    expect(moved.text).toBe(`URL (${receiver.url}/v2) did not return 200 status code, got 500`)
    expect((await api(`/1/webhooks/${created.id}`, { method: 'DELETE' })).body).toEqual({ _value: null })
    expect((await api(`/1/webhooks/${created.id}`)).status).toBe(404)
  })
})

describe('deliveries', () => {
  it('POSTs {action, model, webhook} signed with the app secret, without blocking the API', async () => {
    const created = await hook(board.id)
    let release!: () => void
    receiver.gate = new Promise<void>((resolve) => (release = resolve))
    const moved = await api(`/1/cards/${cards.login.id}`, { method: 'PUT', form: { idList: lists.done.id } })
    expect(moved.status).toBe(200)
    expect((await sandbox.control('/deliveries')).body.pending).toBe(1)
    release()
    receiver.gate = null
    const [delivery] = await settledDeliveries(sandbox)
    expect(delivery).toMatchObject({
      state: 'delivered',
      webhook_id: created.id,
      action_type: 'updateCard',
      attempts: [{ attempt: 1, status: 200 }],
    })

    const [request] = posts()
    expect(request!.headers['content-type']).toBe('application/json')
    const expected = webhookSignature(SECRET, request!.body, receiver.url)
    expect(request!.headers['x-trello-webhook']).toBe(expected)
    const payload = JSON.parse(request!.body)
    expect(payload.action).toMatchObject({
      type: 'updateCard',
      idMemberCreator: members.ada.id,
      data: {
        old: { idList: lists.todo.id },
        listBefore: { name: 'To Do' },
        listAfter: { name: 'Done' },
        card: { id: cards.login.id },
      },
      memberCreator: { username: 'ada' },
    })
    expect(payload.model).toMatchObject({ id: board.id, name: 'Roadmap', shortLink: 'Rdmp2024' })
    expect(payload.webhook).toMatchObject({ id: created.id, idModel: board.id, callbackURL: receiver.url })
  })

  it('delivers what another member does (act), to the right models only', async () => {
    await hook(board.id)
    await hook(cards.api.id, `${receiver.url}?card`)
    await hook(lists.done.id, `${receiver.url}?list`)
    await hook(members.grace.id, `${receiver.url}?member`)
    await sandbox.act('grace', 'PUT', `/1/cards/${cards.login.id}`, { idList: lists.done.id })
    await sandbox.act('ada', 'POST', `/1/cards/${cards.api.id}/actions/comments`, { text: 'hello' })
    await settledDeliveries(sandbox)
    const seen = posts().map(
      (r) =>
        `${r.path} ${JSON.parse(r.body).action.type} ${JSON.parse(r.body).action.memberCreator.username}`,
    )
    expect(seen.sort()).toEqual(
      [
        '/hook updateCard grace',
        '/hook?list updateCard grace',
        '/hook?member updateCard grace',
        '/hook commentCard ada',
        '/hook?card commentCard ada',
      ].sort(),
    )
    const cardDelivery = posts().find((r) => r.path === '/hook?card')!
    expect(JSON.parse(cardDelivery.body).model).toMatchObject({ id: cards.api.id, badges: { comments: 2 } })
    expect(cardDelivery.headers['x-trello-webhook']).toBe(
      webhookSignature(SECRET, cardDelivery.body, `${receiver.url}?card`),
    )
  })

  it('retries failures with the configured delays, then succeeds', async () => {
    await hook(board.id)
    receiver.respond = (request, index) => (request.method === 'POST' && index <= 2 ? 500 : 200)
    await api(`/1/cards/${cards.login.id}/actions/comments`, { form: { text: 'retry me' } })
    const [delivery] = await settledDeliveries(sandbox)
    expect(delivery.state).toBe('delivered')
    expect(delivery.attempts.map((a: { status: number }) => a.status)).toEqual([500, 500, 200])
    const bodies = new Set(posts().map((r) => r.body))
    expect(bodies.size).toBe(1)
  })

  it('gives up after the retries and counts the failure on the webhook', async () => {
    const created = await hook(board.id)
    receiver.respond = (request) => (request.method === 'POST' ? 503 : 200)
    await api(`/1/cards/${cards.login.id}/actions/comments`, { form: { text: 'nobody home' } })
    const [delivery] = await settledDeliveries(sandbox)
    expect(delivery.state).toBe('failed')
    expect(delivery.attempts).toHaveLength(4)
    const webhook = (await api(`/1/webhooks/${created.id}`)).body
    expect(webhook).toMatchObject({
      consecutiveFailures: 1,
      firstConsecutiveFailDate: expect.stringMatching(/Z$/),
    })
  })

  it('a 410 answer deletes the webhook', async () => {
    const created = await hook(board.id)
    receiver.respond = (request) => (request.method === 'POST' ? 410 : 200)
    await api(`/1/cards/${cards.login.id}/actions/comments`, { form: { text: 'gone?' } })
    const [delivery] = await settledDeliveries(sandbox)
    expect(delivery).toMatchObject({ state: 'gone', attempts: [{ status: 410 }] })
    expect((await api(`/1/webhooks/${created.id}`)).status).toBe(404)
    await api(`/1/cards/${cards.login.id}/actions/comments`, { form: { text: 'again' } })
    expect(await settledDeliveries(sandbox)).toHaveLength(1)
  })

  it('inactive webhooks and revoked tokens deliver nothing', async () => {
    const created = await hook(board.id)
    await api(`/1/webhooks/${created.id}`, { method: 'PUT', json: { active: false } })
    await api(`/1/cards/${cards.login.id}/actions/comments`, { form: { text: 'quiet' } })
    expect(await settledDeliveries(sandbox)).toEqual([])
    await api(`/1/webhooks/${created.id}`, { method: 'PUT', json: { active: true } })
    await sandbox.control(`/tokens/${token}`, { method: 'DELETE' })
    await sandbox.act('grace', 'POST', `/1/cards/${cards.login.id}/actions/comments`, { text: 'still quiet' })
    expect(await settledDeliveries(sandbox)).toEqual([])
    expect((await sandbox.control('/webhooks')).body.webhooks).toEqual([])
  })

  it('the control API shows one delivery with its body and signature', async () => {
    await hook(board.id)
    await api(`/1/cards/${cards.login.id}/actions/comments`, { form: { text: 'inspect' } })
    const [listed] = await settledDeliveries(sandbox, '&action_type=commentCard')
    const one = await sandbox.control(`/deliveries/${listed.id}`)
    expect(one.body.delivery.signature).toBe(webhookSignature(SECRET, one.body.delivery.body, receiver.url))
    expect((await call(`${sandbox.url}/_control/deliveries`, { method: 'DELETE' })).status).toBe(204)
    expect((await sandbox.control('/deliveries')).body.deliveries).toEqual([])
  })
})
