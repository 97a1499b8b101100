import { parseBody as parseWithRules, type BodyRules, type ParsedBody } from '../kit/body.ts'
import { header } from '../kit/http.ts'

// Shared by every sandbox; re-exported so handlers import one module.
export { jsonResponse, htmlResponse, emptyResponse, redirectResponse, isRecord, escapeHtml, header } from '../kit/http.ts'
export type { SandboxResponse } from '../kit/http.ts'
export type { ParsedBody } from '../kit/body.ts'

/** Transport-neutral request and response shapes: handlers return data, index.ts writes it. */

export interface IncomingRequest {
  /** Upper-case HTTP method. */
  method: string
  /** Path relative to the plugin prefix (decoded), without the query string. */
  path: string
  /** Full path as received (prefix included). */
  fullPath: string
  query: URLSearchParams
  headers: Record<string, string | string[] | undefined>
  rawBody: string | undefined
  /** `http://host:port/vercel`: the base URL as the client addressed it. */
  base: string
  remoteAddress: string
}

/** Vercel's bodies: forms keep repeated names as arrays; anything else is read as JSON. */
const VERCEL_BODIES: BodyRules = { untyped: 'json', otherTypes: 'json', repeatedFormNames: 'all' }

export function parseBody(req: IncomingRequest): ParsedBody {
  return parseWithRules(req, VERCEL_BODIES)
}

export function cookies(req: IncomingRequest): Record<string, string> {
  const out: Record<string, string> = {}
  for (const part of (header(req, 'cookie') ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at > 0) out[part.slice(0, at).trim()] = decodeURIComponent(part.slice(at + 1).trim())
  }
  return out
}
