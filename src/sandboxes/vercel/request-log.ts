import { BoundedLog, redactHeaders } from '../kit/request-log.ts'
import type { IncomingRequest } from './http.ts'

/** Query parameters that carry secrets and are redacted in the log. */
const SECRET_PARAMS = new Set(['token', 'access_token', 'client_secret', 'code', 'password', 'session'])

export interface LoggedRequest {
  id: number
  method: string
  /** Sandbox-relative path with the (redacted) query string, e.g. `/v9/projects?teamId=team_…`. */
  path: string
  query: Record<string, string>
  /** null when the connection was dropped by a fault. */
  status: number | null
  at: number
  duration_ms: number
  headers: Record<string, string>
  fault: string | null
}

export class RequestLog {
  private readonly log = new BoundedLog<LoggedRequest>()

  record(req: IncomingRequest, status: number | null, startedAt: number, finishedAt: number, fault: string | null): void {
    const query: Record<string, string> = {}
    const search = new URLSearchParams()
    for (const [k, v] of req.query) {
      query[k] = SECRET_PARAMS.has(k) ? '[redacted]' : v
      search.append(k, query[k] as string)
    }
    const qs = search.toString()
    this.log.add({
      method: req.method,
      path: qs ? `${req.path}?${qs}` : req.path,
      query,
      status,
      at: startedAt,
      duration_ms: Math.max(0, finishedAt - startedAt),
      headers: redactHeaders(req.headers),
      fault,
    })
  }

  list(limit?: number): LoggedRequest[] {
    return this.log.list(limit)
  }

  clear(): void {
    this.log.clear()
  }
}
