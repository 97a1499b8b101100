import { parseBody as parseWithRules, type BodyRules, type ParsedBody } from '../kit/body.ts'
import type { IncomingRequest as KitRequest } from '../kit/http.ts'

// Shared by every sandbox; re-exported so handlers import one module.
export {
  jsonResponse,
  htmlResponse,
  emptyResponse,
  redirectResponse,
  isRecord,
  escapeHtml,
  header,
  cookieValue,
} from '../kit/http.ts'
export type { SandboxResponse } from '../kit/http.ts'
export type { ParsedBody } from '../kit/body.ts'

/** The kit's request as Vercel's handlers read it: the path relative to the prefix, and the base URL. */
export interface IncomingRequest extends Omit<KitRequest, 'path' | 'origin'> {
  /** Path relative to the plugin prefix (as received, still percent-encoded), without the query string. */
  path: string
  /** Full path as received (prefix included). */
  fullPath: string
  /** `http://host:port/vercel`: the base URL as the client addressed it. */
  base: string
}

/** Vercel's bodies: forms keep repeated names as arrays; anything else is read as JSON. */
const VERCEL_BODIES: BodyRules = { untyped: 'json', otherTypes: 'json', repeatedFormNames: 'all' }

export function parseBody(req: IncomingRequest): ParsedBody {
  return parseWithRules(req, VERCEL_BODIES)
}
