import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS,
  MAX_ATTACHMENTS_TOTAL_BYTES,
} from '../src/platforms/zendesk/attachments.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, zendeskControl } from './helpers/stack.ts'

// Create Ticket uploads its files to Zendesk and attaches them; Get Ticket Info reads them back.
let stack: TestStack
let integration: string
let api: ReturnType<typeof client>

beforeAll(async () => {
  stack = await startTestStack()
  integration = (await connectZendesk(stack)).integrationId!
  api = client(stack, stack.apiKey)
})
afterAll(async () => {
  await stack?.close()
})

const base64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64')
const ticket = (attachments: unknown) => ({
  subject: 'Printer on fire',
  description: 'Photos attached.',
  attachments,
})

describe('Zendesk attachments through the tool steps', () => {
  it('a ticket created with files has them on its first comment, and their content_url serves the same bytes', async () => {
    const photo = randomBytes(200_000)
    const created = await api.run(
      'zendesk.create_ticket',
      integration,
      ticket([
        { file_name: 'printer.jpg', content_type: 'image/jpeg', content_base64: base64(photo) },
        { file_name: 'log.txt', content_type: 'text/plain', content_base64: base64('paper jam\n') },
        { file_name: 'blob', content_base64: base64('x') },
      ]),
    )
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const info = await api.run('zendesk.get_ticket', integration, { ticket_id: created.body.output.id })
    expect(info.status).toBe(200)
    const [first] = info.body.output.comments
    expect(first.body).toBe('Photos attached.')
    expect(first.attachments.map((a: any) => [a.file_name, a.content_type, a.size])).toEqual([
      ['printer.jpg', 'image/jpeg', photo.length],
      ['log.txt', 'text/plain', 10],
      ['blob', 'application/octet-stream', 1],
    ])
    const content = await fetch(first.attachments[0].content_url)
    expect(Buffer.from(await content.arrayBuffer()).equals(photo)).toBe(true)
  })

  it('Get Ticket Info gives comments without files an empty list', async () => {
    const created = await api.run('zendesk.create_ticket', integration, {
      subject: 's',
      description: 'no files',
    })
    const info = await api.run('zendesk.get_ticket', integration, { ticket_id: created.body.output.id })
    expect(info.body.output.comments[0].attachments).toEqual([])
  })

  it("when Zendesk refuses the ticket, the files uploaded for it are deleted and the error is Zendesk's", async () => {
    const control = zendeskControl(stack)
    await control.clearRequests()
    await control.fault({ status: 503, match: { method: 'POST', path: '/api/v2/tickets' } })
    try {
      const { status } = await api.run(
        'zendesk.create_ticket',
        integration,
        ticket([{ file_name: 'a.txt', content_base64: base64('a') }]),
      )
      expect(status).toBeGreaterThanOrEqual(500)
    } finally {
      await control.clearFaults()
    }
    const seen = (await control.requests()).map(
      (r) =>
        `${r.method} ${r.path.replace(/\/uploads\/\w+/, '/uploads/{token}').replace(/\?.*$/, '')} ${r.status}`,
    )
    expect(seen[0]).toMatch(/^POST .*\/api\/v2\/uploads\.json 201$/)
    expect(seen.at(-1)).toMatch(/^DELETE .*\/api\/v2\/uploads\/\{token\}\.json 204$/)
  })

  const ok = { file_name: 'a.txt', content_type: 'text/plain', content_base64: base64('a') }
  const oversize = 'A'.repeat(Math.ceil((MAX_ATTACHMENT_BYTES + 3) / 3) * 4)
  const half = 'A'.repeat(Math.floor(MAX_ATTACHMENTS_TOTAL_BYTES / 2 / 3) * 4 + 4)
  const hostile: Array<[string, unknown, string]> = [
    ['bad base64', [ok, { ...ok, content_base64: 'not base64!' }], 'input.attachments[1].content_base64'],
    ['base64 without its padding', [{ ...ok, content_base64: 'YQ' }], 'input.attachments[0].content_base64'],
    ['empty content', [{ ...ok, content_base64: '' }], 'input.attachments[0].content_base64'],
    [
      'a file over the limit',
      [ok, { ...ok, content_base64: oversize }],
      'input.attachments[1].content_base64',
    ],
    [
      'files together over the limit',
      [
        { ...ok, content_base64: half },
        { ...ok, content_base64: half },
      ],
      'input.attachments',
    ],
    ['an empty name', [{ ...ok, file_name: '  ' }], 'input.attachments[0].file_name'],
    ['a path for a name', [{ ...ok, file_name: '../etc/passwd' }], 'input.attachments[0].file_name'],
    ['a NUL in the name', [{ ...ok, file_name: 'a\u0000b' }], 'input.attachments[0].file_name'],
    ['not a MIME type', [{ ...ok, content_type: 'text plain' }], 'input.attachments[0].content_type'],
    ['an unknown field', [{ ...ok, url: 'http://x' }], 'input.attachments[0].url'],
    ['no files', [], 'input.attachments'],
    ['too many files', Array.from({ length: MAX_ATTACHMENTS + 1 }, () => ok), 'input.attachments'],
    ['not a list', 'a.txt', 'input.attachments'],
  ]
  it.each(hostile)(
    'refuses %s with 400 invalid_input naming the field, and creates nothing',
    async (_name, attachments, field) => {
      const control = zendeskControl(stack)
      await control.clearRequests()
      const { status, body } = await api.run('zendesk.create_ticket', integration, ticket(attachments))
      expect(status, JSON.stringify(body).slice(0, 300)).toBe(400)
      expect(body.code).toBe('invalid_input')
      expect(body.errors.map((e: { field: string }) => e.field)).toContain(field)
      expect(await control.requests()).toEqual([])
    },
  )
})
