import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AGENT, bearer, call, CUSTOMER, startTestSandbox, type TestSandbox } from './test-support.ts'
import { MAX_UPLOAD_BYTES } from './uploads.ts'

let sandbox: TestSandbox
let acme: string
let auth: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  acme = sandbox.base('acme')
  auth = bearer(await sandbox.token('acme', AGENT))
})
afterAll(() => sandbox.close())

/** POST /api/v2/uploads with the file's bytes as the body, as Zendesk's clients send it. */
async function upload(
  fileName: string | null,
  bytes: Buffer,
  options: { token?: string; contentType?: string; as?: string } = {},
) {
  const query = new URLSearchParams()
  if (fileName !== null) query.set('filename', fileName)
  if (options.token) query.set('token', options.token)
  const response = await fetch(`${acme}/api/v2/uploads.json?${query}`, {
    method: 'POST',
    headers: {
      authorization: options.as ?? auth,
      'content-type': options.contentType ?? 'application/binary',
    },
    body: new Uint8Array(bytes),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

describe('uploads and attachments', () => {
  it('an uploaded file is attached by the comment that names its token, and its content_url serves the same bytes', async () => {
    const png = randomBytes(70_000) // binary: bytes a text decoding would mangle
    const first = await upload('screen shot.png', png, { contentType: 'image/png' })
    expect(first.status).toBe(201)
    const { token, attachment, expires_at: expiresAt } = first.body.upload
    expect(token).toMatch(/^[a-z0-9]{16,}$/)
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(2.9 * 24 * 3600_000)
    expect(attachment).toMatchObject({
      file_name: 'screen shot.png',
      content_type: 'image/png',
      size: png.length,
      inline: false,
      deleted: false,
    })
    expect(attachment.url).toBe(`${acme}/api/v2/attachments/${attachment.id}.json`)

    const second = await upload('notes.txt', Buffer.from('héllo\n'), {
      token,
      contentType: 'text/plain; charset=utf-8',
    })
    expect(second.status).toBe(201)
    expect(second.body.upload.token).toBe(token)
    expect(second.body.upload.attachments.map((a: { file_name: string }) => a.file_name)).toEqual([
      'screen shot.png',
      'notes.txt',
    ])

    const created = await call(`${acme}/api/v2/tickets.json`, {
      auth,
      json: { ticket: { subject: 'With files', comment: { body: 'See attached', uploads: [token] } } },
    })
    expect(created.status).toBe(201)
    const comments = await call(`${acme}/api/v2/tickets/${created.body.ticket.id}/comments.json`, { auth })
    const attachments = comments.body.comments[0].attachments
    expect(
      attachments.map((a: { file_name: string; size: number; content_type: string }) => [
        a.file_name,
        a.size,
        a.content_type,
      ]),
    ).toEqual([
      ['screen shot.png', png.length, 'image/png'],
      ['notes.txt', Buffer.byteLength('héllo\n'), 'text/plain'],
    ])
    const content = await fetch(attachments[0].content_url)
    expect(content.status).toBe(200)
    expect(content.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await content.arrayBuffer()).equals(png)).toBe(true)

    const shown = await call(`${acme}/api/v2/attachments/${attachments[1].id}.json`, { auth })
    expect(shown.status).toBe(200)
    expect(shown.body.attachment).toEqual(attachments[1])

    // A token is used up by the comment that takes its files.
    const again = await call(`${acme}/api/v2/tickets/${created.body.ticket.id}.json`, {
      auth,
      method: 'PUT',
      json: { ticket: { comment: { body: 'again', uploads: [token] } } },
    })
    expect(again.status).toBe(200)
    const after = await call(`${acme}/api/v2/tickets/${created.body.ticket.id}/comments.json`, { auth })
    expect(after.body.comments[1].attachments).toEqual([])
  })

  it('a file of JSON is stored as bytes, not parsed as the request body', async () => {
    const r = await upload('broken.json', Buffer.from('{"not": json'), { contentType: 'application/json' })
    expect(r.status).toBe(201)
    expect(r.body.upload.attachment).toMatchObject({
      file_name: 'broken.json',
      size: 12,
      content_type: 'application/json',
    })
  })

  it('refuses what Zendesk refuses: no filename, an empty file, a file over 50 MB, an unknown token', async () => {
    expect((await upload(null, Buffer.from('x'))).status).toBe(400)
    const empty = await upload('empty.txt', Buffer.alloc(0))
    expect(empty.status).toBe(422)
    expect(empty.body.details.file).toBeDefined()
    const big = await upload('big.bin', Buffer.alloc(MAX_UPLOAD_BYTES + 1))
    expect(big.status).toBe(413)
    expect((await upload('a.txt', Buffer.from('a'), { token: 'nosuchtoken' })).status).toBe(404)
  })

  it('an upload can be deleted, and a token expires after three days; either way a comment naming it gets no files', async () => {
    const deleted = (await upload('gone.txt', Buffer.from('gone'))).body.upload.token
    expect((await call(`${acme}/api/v2/uploads/${deleted}.json`, { auth, method: 'DELETE' })).status).toBe(
      204,
    )
    expect((await call(`${acme}/api/v2/uploads/${deleted}.json`, { auth, method: 'DELETE' })).status).toBe(
      404,
    )
    const expiring = await upload('late.txt', Buffer.from('late'))
    const contentUrl = expiring.body.upload.attachment.content_url
    await sandbox.control('/clock', { body: { advance_ms: 3 * 24 * 3600_000 } })
    expect((await fetch(contentUrl)).status).toBe(200) // not yet swept
    const created = await call(`${acme}/api/v2/tickets.json`, {
      auth,
      json: {
        ticket: {
          subject: 'Late',
          comment: { body: 'files?', uploads: [deleted, expiring.body.upload.token] },
        },
      },
    })
    expect(created.status).toBe(201)
    const comments = await call(`${acme}/api/v2/tickets/${created.body.ticket.id}/comments.json`, { auth })
    expect(comments.body.comments[0].attachments).toEqual([])
    expect((await fetch(contentUrl)).status).toBe(404)
  })

  it('names a malformed uploads list; end users may upload too', async () => {
    const bad = await call(`${acme}/api/v2/tickets.json`, {
      auth,
      json: { ticket: { subject: 'x', comment: { body: 'y', uploads: 'tok' } } },
    })
    expect(bad.status).toBe(422)
    expect(JSON.stringify(bad.body.details.comment)).toContain('uploads')
    const customer = bearer(await sandbox.token('acme', CUSTOMER))
    const r = await upload('c.txt', Buffer.from('c'), { as: customer, contentType: 'text/plain' })
    expect(r.status).toBe(201)
  })
})
