import type { IncomingRequest } from './http.ts'

/** How many requests a sandbox's log keeps (oldest dropped first). */
export const MAX_LOGGED_REQUESTS = 1000

const REDACTED = '[redacted]'

type RawHeaders = Record<string, string | string[] | undefined>

/**
 * One entry of a sandbox's request log (`GET /_control/requests`, docs/sandbox.md): the same shape
 * in every sandbox. `account` is there only in sandboxes whose requests belong to an account (Zendesk).
 */
export interface LoggedRequest {
  id: number
  method: string
  /** The full path as received (prefix included), with path segments that carry secrets redacted. */
  path: string
  /** Repeated names become arrays; secret values are redacted. */
  query: Record<string, string | string[]>
  account?: string | null
  /** null when the connection was dropped by a fault. */
  status: number | null
  /** ISO 8601 on the sandbox clock, when the request arrived. */
  at: string
  duration_ms: number
  headers: Record<string, string>
  /** The injected fault that hit the request (see `faultName`), or null. */
  fault: string | null
}

/** What a sandbox declares as secret in its requests, so its log never shows it. */
export interface LogSecrets {
  /** Query parameter names whose values are credentials. */
  params?: readonly string[]
  /** Masks secrets carried in the path itself (e.g. Trello's `/tokens/{token}`). */
  path?: (path: string) => string
}

/** What the handler skeleton knows once a request is answered (or dropped). */
export interface RequestOutcome {
  status: number | null
  startedAt: number
  finishedAt: number
  fault: string | null
  /** Only for sandboxes with accounts; left out of the entry when undefined. */
  account?: string | null
}

/**
 * Headers fit for a request log: secrets never reach it. Authorization and Proxy-Authorization keep
 * their scheme followed by "[redacted]"; cookies are hidden.
 */
export function redactHeaders(headers: RawHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue
    const value = Array.isArray(raw) ? raw.join(', ') : raw
    const lower = name.toLowerCase()
    if (lower === 'authorization' || lower === 'proxy-authorization')
      out[lower] = `${value.trim().split(/\s+/)[0] ?? ''} ${REDACTED}`
    else if (lower === 'cookie') out[lower] = REDACTED
    else out[lower] = value
  }
  return out
}

/** A query as a plain object (repeated names become arrays), with the named secrets redacted. */
export function redactQuery(
  query: URLSearchParams,
  secrets: ReadonlySet<string> = new Set(),
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, raw] of query) {
    const value = secrets.has(name) ? REDACTED : raw
    const existing = out[name]
    if (existing === undefined) out[name] = value
    else out[name] = Array.isArray(existing) ? [...existing, value] : [existing, value]
  }
  return out
}

/** A sandbox's request log: numbered, bounded, redacted, handed out as copies. */
export class RequestLog {
  private entries: LoggedRequest[] = []
  private nextId = 1
  private readonly secretParams: ReadonlySet<string>

  constructor(private readonly secrets: LogSecrets = {}) {
    this.secretParams = new Set(secrets.params ?? [])
  }

  record(req: IncomingRequest, outcome: RequestOutcome): void {
    const entry: LoggedRequest = {
      id: this.nextId++,
      method: req.method,
      path: this.secrets.path ? this.secrets.path(req.path) : req.path,
      query: redactQuery(req.query, this.secretParams),
      ...(outcome.account !== undefined ? { account: outcome.account } : {}),
      status: outcome.status,
      at: new Date(outcome.startedAt).toISOString(),
      duration_ms: Math.max(0, outcome.finishedAt - outcome.startedAt),
      headers: redactHeaders(req.headers),
      fault: outcome.fault,
    }
    this.entries.push(entry)
    if (this.entries.length > MAX_LOGGED_REQUESTS)
      this.entries.splice(0, this.entries.length - MAX_LOGGED_REQUESTS)
  }

  /** Oldest first; `limit` keeps the most recent N of those `matching`. */
  list(limit?: number, matching: (entry: LoggedRequest) => boolean = () => true): LoggedRequest[] {
    const found = this.entries.filter(matching)
    const limited = limit !== undefined ? found.slice(Math.max(0, found.length - limit)) : found
    return limited.map((e) => ({ ...e }))
  }

  clear(): void {
    this.entries = []
  }
}
