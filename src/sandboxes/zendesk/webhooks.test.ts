import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN, bearer, call, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
let hooks: string
let auth: string

const HOOK = {
  name: 'My hook',
  endpoint: 'https://example.com/zd',
  http_method: 'POST',
  request_format: 'json',
  status: 'active',
  subscriptions: ['zen:event-type:ticket.created'],
}

beforeAll(async () => {
  sandbox = await startTestSandbox()
  hooks = `${sandbox.base('acme')}/api/v2/webhooks`
  auth = bearer(await sandbox.token('acme', ADMIN))
})
afterAll(() => sandbox.close())

describe('webhooks', () => {
  it('creates (201), shows, updates (204), patches (204) and deletes (204)', async () => {
    const created = await call(hooks, { auth, json: { webhook: HOOK } })
    expect(created.status).toBe(201)
    const webhook = created.body.webhook
    expect(webhook.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/)
    expect(webhook).toMatchObject({ ...HOOK, created_by: expect.any(String), created_at: expect.any(String) })
    expect(webhook).not.toHaveProperty('signing_secret')

    const shown = await call(`${hooks}/${webhook.id}`, { auth })
    expect(shown.body.webhook.id).toBe(webhook.id)

    const replaced = await call(`${hooks}/${webhook.id}`, {
      method: 'PUT',
      auth,
      json: { webhook: { ...HOOK, name: 'Renamed' } },
    })
    expect(replaced.status).toBe(204)
    const patched = await call(`${hooks}/${webhook.id}`, {
      method: 'PATCH',
      auth,
      body: JSON.stringify({ webhook: { status: 'inactive' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    })
    expect(patched.status).toBe(204)
    expect((await call(`${hooks}/${webhook.id}.json`, { auth })).body.webhook).toMatchObject({
      name: 'Renamed',
      status: 'inactive',
    })

    const list = await call(`${hooks}?filter[name_contains]=renam`, { auth })
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toEqual([webhook.id])
    expect(list.body.meta).toMatchObject({ has_more: false })

    expect((await call(`${hooks}/${webhook.id}`, { method: 'DELETE', auth })).status).toBe(204)
    const gone = await call(`${hooks}/${webhook.id}`, { auth })
    expect(gone.status).toBe(404)
    expect(gone.body.errors[0]).toMatchObject({ code: 'RecordNotFound' })
  })

  it('shows and resets the signing secret', async () => {
    const { webhook } = (await call(hooks, { auth, json: { webhook: HOOK } })).body
    const secret = await call(`${hooks}/${webhook.id}/signing_secret`, { auth })
    expect(secret.status).toBe(200)
    expect(secret.body).toEqual({ signing_secret: { algorithm: 'sha256', secret: expect.any(String) } })
    const reset = await call(`${hooks}/${webhook.id}/signing_secret`, { method: 'POST', auth, json: {} })
    expect(reset.status).toBe(201)
    expect(reset.body.signing_secret.secret).not.toBe(secret.body.signing_secret.secret)
    expect((await call(`${hooks}/${webhook.id}/signing_secret`, { auth })).body).toEqual(reset.body)
  })

  it.each([
    ['no name', { ...HOOK, name: '' }, '/webhook/name'],
    ['a relative endpoint', { ...HOOK, endpoint: '/zd' }, '/webhook/endpoint'],
    ['an unknown method', { ...HOOK, http_method: 'TRACE' }, '/webhook/http_method'],
    ['event subscriptions over GET', { ...HOOK, http_method: 'GET' }, '/webhook/subscriptions'],
    ['an unknown format', { ...HOOK, request_format: 'yaml' }, '/webhook/request_format'],
  ])('answers 400 for %s', async (_, webhook, pointer) => {
    const response = await call(hooks, { auth, json: { webhook } })
    expect(response.status).toBe(400)
    expect(response.body.errors).toContainEqual(
      expect.objectContaining({ code: 'InvalidInput', source: { pointer } }),
    )
  })
})
