import { recordNotFound } from './errors.ts'
import { emptyResponse, jsonResponse, type SandboxResponse } from './http.ts'
import { randomToken } from './ids.ts'
import type { Account, Attachment } from './model.ts'
import type { ApiContext, ApiRoute } from './router.ts'
import { isoSeconds } from './time.ts'

/**
 * Attachments as Zendesk takes them (docs/sandbox.md, "Attachments"): a file is uploaded on its
 * own (`POST /api/v2/uploads?filename=…`, the raw bytes as the body), which answers a token; a
 * comment names the token in `comment.uploads` and the files become that comment's attachments.
 * More files join an upload by passing its `token`. Tokens expire after three days, as Zendesk's.
 */

/** Zendesk's documented attachment size limit (50 MB per file). */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024
export const UPLOAD_TTL_MS = 3 * 24 * 60 * 60 * 1000

interface Upload {
  token: string
  attachments: Attachment[]
  expiresAt: number
}

interface AccountFiles {
  uploads: Map<string, Upload>
  bytes: Map<number, Buffer>
  byContentToken: Map<string, Attachment>
}

// Kept beside the account, not in it: bytes are not part of the account's JSON snapshot.
const filesByAccount = new WeakMap<Account, AccountFiles>()
function filesOf(account: Account): AccountFiles {
  let files = filesByAccount.get(account)
  if (!files)
    filesByAccount.set(account, (files = { uploads: new Map(), bytes: new Map(), byContentToken: new Map() }))
  return files
}

export function attachmentJson(attachment: Attachment): Record<string, unknown> {
  return {
    id: attachment.id,
    url: `${attachment.base}/api/v2/attachments/${attachment.id}.json`,
    file_name: attachment.fileName,
    content_url: contentUrl(attachment),
    mapped_content_url: contentUrl(attachment),
    content_type: attachment.contentType,
    size: attachment.size,
    width: null,
    height: null,
    inline: false,
    deleted: false,
    malware_access_override: false,
    malware_scan_result: 'malware_not_found',
    thumbnails: [],
  }
}

function contentUrl(attachment: Attachment): string {
  return `${attachment.base}/attachments/token/${attachment.contentToken}/?name=${encodeURIComponent(attachment.fileName)}`
}

function liveUpload(account: Account, token: string, now: number): Upload | undefined {
  const files = filesOf(account)
  const upload = files.uploads.get(token)
  if (upload && upload.expiresAt <= now) {
    forget(files, upload)
    return undefined
  }
  return upload
}

function forget(files: AccountFiles, upload: Upload): void {
  files.uploads.delete(upload.token)
  for (const attachment of upload.attachments) {
    files.bytes.delete(attachment.id)
    files.byContentToken.delete(attachment.contentToken)
  }
}

function createUpload(ctx: ApiContext): SandboxResponse {
  const fileName = ctx.req.query.get('filename')?.trim()
  if (!fileName)
    return jsonResponse(400, {
      error: 'ParameterMissing',
      description: 'param is missing or the value is empty: filename',
    })
  const bytes = ctx.req.rawBytes ?? Buffer.from(ctx.req.rawBody ?? '', 'utf8')
  if (bytes.length === 0) {
    return jsonResponse(422, {
      error: 'RecordInvalid',
      description: 'Record validation errors',
      details: { file: [{ description: 'File: cannot be blank' }] },
    })
  }
  if (bytes.length > MAX_UPLOAD_BYTES) {
    return jsonResponse(413, {
      error: 'PayloadTooLarge',
      description: `File size exceeds the limit of ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB`,
    })
  }
  const files = filesOf(ctx.account)
  for (const stale of files.uploads.values()) if (stale.expiresAt <= ctx.now) forget(files, stale)
  const existingToken = ctx.req.query.get('token')
  const upload = existingToken
    ? liveUpload(ctx.account, existingToken, ctx.now)
    : { token: randomToken(12), attachments: [], expiresAt: ctx.now + UPLOAD_TTL_MS }
  if (!upload) return recordNotFound()
  const contentType =
    (ctx.req.headers['content-type'] as string | undefined)?.split(';')[0]?.trim() ||
    'application/octet-stream'
  const attachment: Attachment = {
    id: ctx.store.nextId('attachment'),
    fileName,
    contentType,
    size: bytes.length,
    contentToken: randomToken(16),
    base: ctx.base,
  }
  upload.attachments.push(attachment)
  files.uploads.set(upload.token, upload)
  files.bytes.set(attachment.id, Buffer.from(bytes))
  files.byContentToken.set(attachment.contentToken, attachment)
  return jsonResponse(201, {
    upload: {
      token: upload.token,
      expires_at: isoSeconds(upload.expiresAt),
      attachment: attachmentJson(attachment),
      attachments: upload.attachments.map(attachmentJson),
    },
  })
}

function deleteUpload(ctx: ApiContext): SandboxResponse {
  const upload = liveUpload(ctx.account, ctx.params.token as string, ctx.now)
  if (!upload) return recordNotFound()
  forget(filesOf(ctx.account), upload)
  return emptyResponse(204)
}

function showAttachment(ctx: ApiContext): SandboxResponse {
  const id = Number(ctx.params.id)
  const attachment = [...filesOf(ctx.account).byContentToken.values()].find((a) => a.id === id)
  return attachment ? jsonResponse(200, { attachment: attachmentJson(attachment) }) : recordNotFound()
}

/**
 * The files of the uploads a comment names, which now belong to it: each token is used up.
 * Unknown and expired tokens are skipped, as Zendesk skips them (the comment is saved without
 * those files).
 */
export function claimUploads(account: Account, tokens: string[], now: number): Attachment[] {
  const files = filesOf(account)
  const claimed: Attachment[] = []
  for (const token of tokens) {
    const upload = liveUpload(account, token, now)
    if (!upload) continue
    files.uploads.delete(token)
    claimed.push(...upload.attachments)
  }
  return claimed
}

/** `GET {base}/attachments/token/{contentToken}/?name=…`: the file itself, as content_url serves it. */
export function serveAttachmentContent(account: Account, contentToken: string): SandboxResponse | undefined {
  const files = filesOf(account)
  const attachment = files.byContentToken.get(contentToken)
  const bytes = attachment ? files.bytes.get(attachment.id) : undefined
  if (!attachment || !bytes) return undefined
  return {
    status: 200,
    headers: {
      'content-type': attachment.contentType,
      'content-length': String(bytes.length),
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(attachment.fileName)}`,
      'x-content-type-options': 'nosniff',
    },
    // The kit types payloads as text; Fastify sends a Buffer as the bytes it holds.
    payload: bytes as unknown as string,
  }
}

export const uploadRoutes: ApiRoute[] = [
  {
    method: 'POST',
    path: '/api/v2/uploads',
    access: 'any-user',
    scope: 'tickets',
    rawBody: true,
    handle: createUpload,
  },
  {
    method: 'DELETE',
    path: '/api/v2/uploads/{token}',
    access: 'any-user',
    scope: 'tickets',
    handle: deleteUpload,
  },
  {
    method: 'GET',
    path: '/api/v2/attachments/:id',
    access: 'agent',
    scope: 'tickets',
    handle: showAttachment,
  },
]
