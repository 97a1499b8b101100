import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../bench/processes.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// Invitation and reset links go out by mail when SWITCHYARD_SMTP_URL is set (docs/configuration.md),
// through nodemailer, here to a real SMTP server on loopback (smtp-server, a test-only dependency).
interface Received {
  from: string
  to: string[]
  data: string
}
const received: Received[] = []
let smtp: SMTPServer
let stack: TestStack
let brokenStack: TestStack

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    hideSTARTTLS: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let data = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => (data += chunk))
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const port = (smtp.server.address() as AddressInfo).port
  stack = await startTestStack({
    config: { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'Switchyard <noreply@example.test>' },
  })
  // Nothing listens here: the mail cannot go.
  brokenStack = await startTestStack({ config: { smtpUrl: `smtp://127.0.0.1:${await freePort()}` } })
})
afterAll(async () => {
  await stack?.close()
  await brokenStack?.close()
  await new Promise<void>((resolve) => smtp?.close(() => resolve()))
})

const addUser = (on: TestStack, email: string) =>
  fetch(`${on.url}/v1/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${on.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))

/** A mail's text, its quoted-printable soft line breaks joined. */
const textOf = (data: string) => data.replace(/=\r?\n/g, '').replace(/=3D/g, '=')

describe('links by mail', () => {
  it('an invitation is mailed to the person, with the link the admin also gets', async () => {
    const created = await addUser(stack, 'mailed@example.test')
    expect(created.status).toBe(201)
    expect(created.body.invitation.emailed).toBe(true)
    const mail = received.find((m) => m.to.includes('mailed@example.test'))!
    expect(mail.from).toBe('noreply@example.test')
    expect(textOf(mail.data)).toContain(created.body.invitation.url)
    expect(mail.data).toMatch(/Subject: You are invited to Switchyard/)
  })

  it('a reset link is mailed too', async () => {
    const created = await addUser(stack, 'reset-by-mail@example.test')
    const user = created.body.user
    await stack.services.store.db
      .updateTable('users')
      .set({ password_hash: 'scrypt$1$1$1$AA$AA' })
      .where('id', '=', user.id)
      .execute()
    const link = await fetch(`${stack.url}/v1/users/${user.id}/password-link`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}` },
    }).then((r) => r.json())
    expect(link).toMatchObject({ purpose: 'reset', emailed: true })
    const mails = received.filter((m) => m.to.includes('reset-by-mail@example.test'))
    expect(textOf(mails.at(-1)!.data)).toContain(link.url)
  })

  it('a mail that cannot be sent still gives the admin the link to hand over', async () => {
    const created = await addUser(brokenStack, 'unmailed@example.test')
    expect(created.status).toBe(201)
    expect(created.body.invitation).toMatchObject({ purpose: 'invitation', emailed: false })
    expect(created.body.invitation.url).toMatch(/\/welcome#token=/)
  })
})
