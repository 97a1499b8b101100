/** A request as a sandbox handler sees it: transport-neutral, so handlers return data. */
export interface IncomingRequest {
  /** Upper-case HTTP method. */
  method: string
  /** Full request path as received (prefix included, still percent-encoded), without the query. */
  path: string
  query: URLSearchParams
  headers: Record<string, string | string[] | undefined>
  /** The body as UTF-8 text, which most endpoints parse. */
  rawBody: string | undefined
  /** The body's bytes as received, for endpoints that take files (Zendesk's uploads). */
  rawBytes?: Buffer
  /** `http://host:port` as the client addressed us (Host header): returned URLs and OAuth 1.0a signatures use it. */
  origin: string
  /** The client's IP address (Vercel limits unauthenticated requests per address). */
  remoteAddress: string
}

/** A header's first value; names are matched case-insensitively. */
export function header(
  req: { headers: Record<string, string | string[] | undefined> },
  name: string,
): string | undefined {
  const value = req.headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/** Percent-decodes a path segment or cookie value; malformed encoding is left as sent, never thrown. */
export function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** A cookie's value (percent-decoded where the encoding is sound), or undefined when it is not sent. */
export function cookieValue(
  req: { headers: Record<string, string | string[] | undefined> },
  name: string,
): string | undefined {
  for (const part of (header(req, 'cookie') ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at > 0 && part.slice(0, at).trim() === name) return decodeOrKeep(part.slice(at + 1).trim())
  }
  return undefined
}

/** What a sandbox handler answers; the sandbox's Fastify route writes it out. */
export interface SandboxResponse {
  status: number
  headers: Record<string, string>
  payload?: string
  /**
   * A body written piece by piece instead of `payload` (server-sent events). The status and
   * headers go out with the first piece, so a wait before it is a slow first byte. When the
   * iteration throws, the connection is cut where it is: before the first piece, nothing at all
   * was sent (a dropped connection); after it, the client sees a body that stops short.
   */
  stream?: AsyncIterable<string>
}

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): SandboxResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    payload: JSON.stringify(body),
  }
}

export function textResponse(
  status: number,
  text: string,
  headers: Record<string, string> = {},
): SandboxResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, payload: text }
}

export function htmlResponse(
  status: number,
  html: string,
  headers: Record<string, string> = {},
): SandboxResponse {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers }, payload: html }
}

export function emptyResponse(status = 204, headers: Record<string, string> = {}): SandboxResponse {
  return { status, headers }
}

export function redirectResponse(location: string, headers: Record<string, string> = {}): SandboxResponse {
  return { status: 302, headers: { location, ...headers } }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}
