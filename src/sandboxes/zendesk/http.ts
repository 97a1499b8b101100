import { parseBody as parseWithRules, type BodyRules, type ParsedBody } from '../kit/body.ts'
import type { IncomingRequest } from '../kit/http.ts'

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
export type { ParsedBody } from '../kit/body.ts'

/**
 * Zendesk's bodies: JSON for any `*json*` type (the webhooks PATCH uses
 * `application/merge-patch+json`), flat objects for forms, JSON when there is no Content-Type;
 * other types carry no body.
 */
const ZENDESK_BODIES: BodyRules = { untyped: 'json', otherTypes: 'ignore', repeatedFormNames: 'last' }

export function parseBody(req: IncomingRequest): ParsedBody {
  return parseWithRules(req, ZENDESK_BODIES)
}
