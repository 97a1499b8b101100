import { z } from 'zod'
import type { ApiClient } from '../../core/http/api-client.ts'

/**
 * Files a step attaches to a ticket. Zendesk takes files up to 50 MB (docs/tools.md); a step's
 * files travel base64-encoded inside one JSON request to Switchyard, so they are bounded lower:
 * 10 MB each and 10 MB together, at most 10 files.
 */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024
export const MAX_ATTACHMENTS_TOTAL_BYTES = 10 * 1024 * 1024
export const MAX_ATTACHMENTS = 10

const MB = 1024 * 1024

/** Bytes that `base64` decodes to, from its length alone (so a huge value is judged unread). */
function decodedSize(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0
  return Math.floor(base64.length / 4) * 3 - padding
}

/**
 * Standard, padded base64. Checked by a round trip rather than a regular expression: a pattern
 * repeated over megabytes of input overflows the regex engine's stack.
 */
function isBase64(value: string): boolean {
  return value.length % 4 === 0 && Buffer.from(value, 'base64').toString('base64') === value
}

export const AttachmentInput = z.strictObject({
  file_name: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(255)
    // eslint-disable-next-line no-control-regex
    .regex(/^[^/\\\u0000-\u001f\u007f]+$/, 'must be a file name, without slashes or control characters'),
  content_type: z
    .string()
    .trim()
    .toLowerCase()
    .max(100)
    .regex(
      /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/,
      'must be a MIME type such as image/png',
    )
    .default('application/octet-stream'),
  content_base64: z.string().superRefine((value, ctx) => {
    const problem =
      value === ''
        ? 'must not be empty: Zendesk takes no empty files'
        : decodedSize(value) > MAX_ATTACHMENT_BYTES
          ? `must decode to at most ${MAX_ATTACHMENT_BYTES / MB} MB`
          : !isBase64(value)
            ? 'must be standard base64 (A-Z, a-z, 0-9, +, /, with = padding)'
            : undefined
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  }),
})

export const AttachmentsInput = z
  .array(AttachmentInput)
  .min(1)
  .max(MAX_ATTACHMENTS)
  .superRefine((files, ctx) => {
    const total = files.reduce((sum, f) => sum + decodedSize(f.content_base64), 0)
    if (total > MAX_ATTACHMENTS_TOTAL_BYTES)
      ctx.addIssue({
        code: 'custom',
        message: `the files together must be at most ${MAX_ATTACHMENTS_TOTAL_BYTES / MB} MB`,
      })
  })

/**
 * Uploads the files as one Zendesk upload (the first answers a token, the others join it) and
 * returns the token a comment names in `uploads` to attach them.
 */
export async function uploadAll(api: ApiClient, files: z.infer<typeof AttachmentsInput>): Promise<string> {
  let token: string | undefined
  for (const file of files) {
    const query = new URLSearchParams({ filename: file.file_name, ...(token ? { token } : {}) })
    const blob = new Blob([Buffer.from(file.content_base64, 'base64')], { type: file.content_type })
    const { upload } = await api.post(`/api/v2/uploads.json?${query}`, blob)
    token = upload.token as string
  }
  return token as string
}

/** An attachment as steps return it. */
export const Attachment = z.looseObject({
  id: z.number().int(),
  file_name: z.string(),
  content_type: z.string(),
  size: z.number().int(),
  content_url: z.string(),
})
