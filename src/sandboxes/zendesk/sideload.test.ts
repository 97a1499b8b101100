import { afterAll, beforeAll, expect, it } from 'vitest'
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

it('include=users sideloads the people a ticket and its comments refer to', async () => {
  const created = await call(`${sandbox.base('acme')}/api/v2/tickets.json`, {
    auth,
    json: { ticket: { subject: 's', comment: { body: 'b' }, assignee_email: 'agent@acme.test' } },
  })
  const id = created.body.ticket.id
  const plain = await call(`${sandbox.base('acme')}/api/v2/tickets/${id}.json`, { auth })
  expect(plain.body.users).toBeUndefined()
  const withUsers = await call(`${sandbox.base('acme')}/api/v2/tickets/${id}.json?include=users`, { auth })
  expect(withUsers.body.users.map((u: any) => u.email).sort()).toEqual(['admin@acme.test', 'agent@acme.test'])
  const comments = await call(`${sandbox.base('acme')}/api/v2/tickets/${id}/comments.json?include=users`, {
    auth,
  })
  expect(comments.body.users.map((u: any) => u.email)).toEqual(['admin@acme.test'])
})
