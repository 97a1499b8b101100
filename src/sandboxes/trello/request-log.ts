import { BoundedLog, redactHeaders } from '../kit/request-log.ts'
import type { IncomingRequest } from './http.ts'

const REDACTED = '[redacted]'
/** Query and body names whose values are credentials. */
const SECRET_PARAMS = new Set(['key', 'token', 'oauth_signature', 'oauth_token', 'oauth_verifier', 'oauth_consumer_key', 'password'])

export interface LoggedRequest {
  id: number
  method: string
  path: string
  query: Record<string, string | string[]>
  /** null when the connection was dropped by a fault. */
  status: number | null
  at: string
  duration_ms: number
  headers: Record<string, string>
  fault: string | null
}

/** `/1/tokens/{64 hex}/...` carries a token in the path: mask it too. */
export function redactPath(path: string): string {
  return path.replace(/(\/tokens\/)[^/?]+/gi, `$1${REDACTED}`)
}

export function redactQuery(query: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, raw] of query) {
    const value = SECRET_PARAMS.has(name) ? REDACTED : raw
    const existing = out[name]
    if (existing === undefined) out[name] = value
    else out[name] = Array.isArray(existing) ? [...existing, value] : [existing, value]
  }
  return out
}

export class RequestLog {
  private readonly log = new BoundedLog<LoggedRequest>()

  record(req: IncomingRequest, status: number | null, startedAt: number, finishedAt: number, fault: string | null): void {
    this.log.add({
      method: req.method,
      path: redactPath(req.path),
      query: redactQuery(req.query),
      status,
      at: new Date(startedAt).toISOString(),
      duration_ms: Math.max(0, finishedAt - startedAt),
      headers: redactHeaders(req.headers),
      fault,
    })
  }

  /** Oldest first; `limit` keeps the most recent N. */
  list(limit?: number): LoggedRequest[] {
    return this.log.list(limit)
  }

  clear(): void {
    this.log.clear()
  }
}
