import { BoundedLog, redactHeaders } from '../kit/request-log.ts'
import { queryToObject, type IncomingRequest } from './http.ts'

export interface LoggedRequest {
  id: number
  method: string
  path: string
  query: Record<string, string | string[]>
  account: string | null
  /** null when the connection was dropped by a fault. */
  status: number | null
  at: string
  duration_ms: number
  headers: Record<string, string>
  fault: string | null
}

export class RequestLog {
  private readonly log = new BoundedLog<LoggedRequest>()

  record(
    req: IncomingRequest,
    account: string | null,
    status: number | null,
    startedAt: number,
    finishedAt: number,
    fault: string | null,
  ): void {
    this.log.add({
      method: req.method,
      path: req.path,
      query: queryToObject(req.query),
      account,
      status,
      at: new Date(startedAt).toISOString(),
      duration_ms: Math.max(0, finishedAt - startedAt),
      // Zendesk's log keeps only the scheme of Authorization.
      headers: redactHeaders(req.headers, 'scheme'),
      fault,
    })
  }

  /** Oldest first; `limit` keeps the most recent N. */
  list(filter: { account?: string | null; limit?: number }): LoggedRequest[] {
    return this.log.list(filter.limit, (e) => !filter.account || e.account === filter.account)
  }

  clear(): void {
    this.log.clear()
  }
}
