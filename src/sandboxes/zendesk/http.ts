import { header, type IncomingRequest } from '../kit/http.ts'

// Shared by every sandbox; re-exported so handlers import one module.
export { jsonResponse, textResponse, htmlResponse, emptyResponse, redirectResponse, isRecord, escapeHtml, header } from '../kit/http.ts'
export type { IncomingRequest, SandboxResponse } from '../kit/http.ts'

export type ParsedBody = { ok: true; value: unknown } | { ok: false; reason: string }

/**
 * Parses a request body by its Content-Type: JSON for any `*json*` type (including
 * `application/merge-patch+json`, which the webhooks PATCH uses), flat key/value objects for
 * `application/x-www-form-urlencoded`. A body without a Content-Type is tried as JSON, which is
 * what curl users and hand-written clients usually mean.
 */
export function parseBody(req: IncomingRequest): ParsedBody {
  const raw = req.rawBody
  if (raw === undefined || raw.trim() === '') return { ok: true, value: undefined }
  const contentType = (header(req, 'content-type') ?? '').toLowerCase()
  if (contentType.includes('application/x-www-form-urlencoded')) {
    return { ok: true, value: Object.fromEntries(new URLSearchParams(raw)) }
  }
  if (contentType === '' || contentType.includes('json')) {
    try {
      return { ok: true, value: JSON.parse(raw) as unknown }
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : 'invalid JSON' }
    }
  }
  return { ok: true, value: undefined }
}
