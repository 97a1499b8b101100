import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import nodeZendesk from 'node-zendesk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AGENT, startTestSandbox, type TestSandbox } from '../src/sandboxes/zendesk/test-support.ts'

/**
 * Attachments through the published `node-zendesk` client (see zendesk-real-client.test.ts): it
 * uploads a file as Zendesk's own clients do (the bytes as the body, `application/binary`), a
 * ticket's comment takes the token, and the attachment is read back, bytes included.
 */

type Client = ReturnType<typeof nodeZendesk.createClient>
/**
 * node-zendesk sends a stream (or FormData) as the body and reads anything else as a file path;
 * its .d.ts says Buffer, hence the cast.
 */
const file = (bytes: Buffer) => Readable.from([bytes]) as unknown as Buffer
let sandbox: TestSandbox
let zendesk: Client

beforeAll(async () => {
  sandbox = await startTestSandbox()
  zendesk = nodeZendesk.createClient({
    endpointUri: `${sandbox.base('acme')}/api/v2`,
    token: await sandbox.token('acme', AGENT),
    oauth: true,
    throwOriginalException: true,
  })
})
afterAll(async () => {
  await sandbox?.close()
})

describe('node-zendesk: attachments', () => {
  it('uploads two files under one token, attaches them to a new ticket, and reads them back', async () => {
    const pdf = randomBytes(50_000)
    const first = (await zendesk.attachments.upload(file(pdf), {
      filename: 'invoice.pdf',
      binary: true,
    })) as any
    const token = first.upload.token as string
    expect(first.upload.attachment).toMatchObject({ file_name: 'invoice.pdf', size: pdf.length })
    const second = (await zendesk.attachments.upload(file(Buffer.from('second')), {
      filename: 'note.txt',
      binary: true,
      token,
    })) as any
    expect(second.upload.attachments).toHaveLength(2)

    const created = (await zendesk.tickets.create({
      ticket: { subject: 'Invoice', comment: { body: 'Attached', uploads: [token] } },
    } as any)) as any
    const comments = (await zendesk.tickets.getComments(created.result.id)) as any[]
    const attachments = comments[0].attachments
    expect(attachments.map((a: any) => [a.file_name, a.size])).toEqual([
      ['invoice.pdf', pdf.length],
      ['note.txt', 6],
    ])

    const shown = (await zendesk.attachments.show(attachments[0].id)) as any
    expect(shown.result ?? shown).toMatchObject({
      attachment: { id: attachments[0].id, file_name: 'invoice.pdf' },
    })
    const content = await fetch(attachments[0].content_url)
    expect(Buffer.from(await content.arrayBuffer()).equals(pdf)).toBe(true)
  })

  it('deletes an upload it will not use', async () => {
    const made = (await zendesk.attachments.upload(file(Buffer.from('x')), {
      filename: 'x.txt',
      binary: true,
    })) as any
    // node-zendesk resolves a 204 with {response, result} rather than a body.
    expect(((await zendesk.attachments.deleteUpload(made.upload.token)) as any).response.status).toBe(204)
    await expect(zendesk.attachments.deleteUpload(made.upload.token)).rejects.toMatchObject({
      statusCode: 404,
    })
  })
})
