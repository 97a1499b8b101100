import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearer, call, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
let auth: string
beforeAll(async () => {
  sandbox = await startTestSandbox()
  auth = bearer(await sandbox.token('acme', 'admin@acme.test'))
})
afterAll(async () => {
  await sandbox?.close()
})

async function newTicket(): Promise<number> {
  const created = await call(`${sandbox.base('acme')}/api/v2/tickets.json`, {
    auth,
    json: { ticket: { subject: 'to delete', comment: { body: 'x' } } },
  })
  expect(created.status).toBe(201)
  return created.body.ticket.id
}

describe('deleted tickets', () => {
  it('DELETE soft-deletes: the ticket 404s, is listed as deleted and can be restored', async () => {
    const id = await newTicket()
    expect(
      (await call(`${sandbox.base('acme')}/api/v2/tickets/${id}.json`, { auth, method: 'DELETE' })).status,
    ).toBe(204)
    expect((await call(`${sandbox.base('acme')}/api/v2/tickets/${id}.json`, { auth })).status).toBe(404)
    const listed = await call(`${sandbox.base('acme')}/api/v2/deleted_tickets.json`, { auth })
    expect(listed.body.deleted_tickets).toContainEqual(
      expect.objectContaining({ id, subject: 'to delete', actor: { id: 1001, name: 'Ada Admin' } }),
    )
    expect(
      (
        await call(`${sandbox.base('acme')}/api/v2/deleted_tickets/${id}/restore.json`, {
          auth,
          method: 'PUT',
        })
      ).status,
    ).toBe(200)
    const back = await call(`${sandbox.base('acme')}/api/v2/tickets/${id}.json`, { auth })
    expect(back.body.ticket.subject).toBe('to delete')
  })

  it('permanent deletion removes it for good', async () => {
    const id = await newTicket()
    await call(`${sandbox.base('acme')}/api/v2/tickets/${id}.json`, { auth, method: 'DELETE' })
    expect(
      (await call(`${sandbox.base('acme')}/api/v2/deleted_tickets/${id}.json`, { auth, method: 'DELETE' }))
        .status,
    ).toBe(204)
    const listed = await call(`${sandbox.base('acme')}/api/v2/deleted_tickets.json`, { auth })
    expect(listed.body.deleted_tickets.map((t: any) => t.id)).not.toContain(id)
    expect(
      (
        await call(`${sandbox.base('acme')}/api/v2/deleted_tickets/${id}/restore.json`, {
          auth,
          method: 'PUT',
        })
      ).status,
    ).toBe(404)
  })

  it('a ticket that was never soft-deleted cannot be permanently deleted', async () => {
    const id = await newTicket()
    const result = await call(`${sandbox.base('acme')}/api/v2/deleted_tickets/${id}.json`, {
      auth,
      method: 'DELETE',
    })
    expect(result.status).toBe(404)
    expect(result.body.error).toBe('RecordNotFound')
  })
})
