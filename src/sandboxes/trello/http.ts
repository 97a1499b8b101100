import { parseBody as parseWithRules, type BodyRules } from '../kit/body.ts'
import { isRecord, type IncomingRequest, type SandboxResponse } from '../kit/http.ts'

// Shared by every sandbox; re-exported so handlers import one module.
export {
  jsonResponse,
  textResponse,
  htmlResponse,
  emptyResponse,
  redirectResponse,
  isRecord,
  escapeHtml,
  header,
  cookieValue,
} from '../kit/http.ts'
export type { IncomingRequest, SandboxResponse } from '../kit/http.ts'
export { isFormBody } from '../kit/body.ts'

export function formResponse(
  status: number,
  values: Record<string, string>,
  headers: Record<string, string> = {},
): SandboxResponse {
  return {
    status,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(values).toString(),
  }
}

export type ParsedBody = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string }

/**
 * Trello's bodies: form-encoded (what most Trello clients send), JSON, or nothing. A body without
 * a Content-Type is tried as JSON, then as a form. Other types (multipart uploads, text) are
 * ignored rather than refused.
 */
const TRELLO_BODIES: BodyRules = { untyped: 'json-or-form', otherTypes: 'ignore', repeatedFormNames: 'last' }

/** The body as a flat record (empty when there is none); JSON must be an object. */
export function parseBody(req: IncomingRequest): ParsedBody {
  const parsed = parseWithRules(req, TRELLO_BODIES)
  if (!parsed.ok) return parsed
  if (parsed.value === undefined) return { ok: true, value: {} }
  return isRecord(parsed.value)
    ? { ok: true, value: parsed.value }
    : { ok: false, reason: 'body must be a JSON object' }
}
