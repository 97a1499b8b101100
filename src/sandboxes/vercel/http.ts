import { header } from '../kit/http.ts'

// Shared by every sandbox; re-exported so handlers import one module.
export { jsonResponse, htmlResponse, emptyResponse, redirectResponse, isRecord, escapeHtml, header } from '../kit/http.ts'
export type { SandboxResponse } from '../kit/http.ts'

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

export type ParsedBody = { ok: true; value: unknown } | { ok: false; reason: string }

/** JSON (or no Content-Type, tried as JSON) and form-encoded bodies. */
export function parseBody(req: IncomingRequest): ParsedBody {
  const raw = req.rawBody
  if (raw === undefined || raw.trim() === '') return { ok: true, value: undefined }
  const contentType = (header(req, 'content-type') ?? '').toLowerCase()
  if (contentType.includes('application/x-www-form-urlencoded')) {
    const out: Record<string, string | string[]> = {}
    for (const [k, v] of new URLSearchParams(raw)) {
      const prev = out[k]
      out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]
    }
    return { ok: true, value: out }
  }
  try {
    return { ok: true, value: JSON.parse(raw) as unknown }
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : 'invalid JSON' }
  }
}

export function cookies(req: IncomingRequest): Record<string, string> {
  const out: Record<string, string> = {}
  for (const part of (header(req, 'cookie') ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at > 0) out[part.slice(0, at).trim()] = decodeURIComponent(part.slice(at + 1).trim())
  }
  return out
}
