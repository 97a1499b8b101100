import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN, bearer, call, CUSTOMER, startTestSandbox, type TestSandbox } from './test-support.ts'

// The Requests API (docs/sandbox.md, Zendesk endpoints): how an end user opens a ticket, which the
// Tickets API refuses them.

let sandbox: TestSandbox
let base: string
beforeAll(async () => {
  sandbox = await startTestSandbox()
  base = sandbox.base('acme')
})
afterAll(() => sandbox.close())

describe('POST /api/v2/requests', () => {
  it('lets an end user open a ticket the Tickets API refuses them, as requester and submitter', async () => {
    const auth = bearer(await sandbox.token('acme', CUSTOMER))
    const refused = await call(`${base}/api/v2/tickets.json`, {
      auth,
      json: { ticket: { subject: 'x', comment: { body: 'y' } } },
    })
    expect(refused.status).toBe(403)
    const created = await call(`${base}/api/v2/requests.json`, {
      auth,
      json: { request: { subject: 'Broken mouse', comment: { body: 'It squeaks' }, status: 'solved' } },
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe(created.body.request.url)
    expect(created.body.request).toMatchObject({
      subject: 'Broken mouse',
      description: 'It squeaks',
      status: 'new',
      requester_id: 1003,
    })
    const admin = bearer(await sandbox.token('acme', ADMIN))
    const ticket = (await call(`${base}/api/v2/tickets/${created.body.request.id}.json`, { auth: admin }))
      .body.ticket
    expect(ticket).toMatchObject({
      subject: 'Broken mouse',
      requester_id: 1003,
      submitter_id: 1003,
      status: 'new',
    })
  })

  const bad: Array<[string, unknown, number]> = [
    ['no request object', { ticket: {} }, 400],
    ['no comment', { request: { subject: 'x' } }, 422],
  ]
  it.each(bad)('refuses %s', async (_what, body, status) => {
    const auth = bearer(await sandbox.token('acme', CUSTOMER))
    expect((await call(`${base}/api/v2/requests.json`, { auth, json: body })).status).toBe(status)
  })
})
