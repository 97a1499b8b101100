import { randomUUID } from 'node:crypto'

/**
 * Injected faults for the sandboxes' tests (docs/sandbox.md): latency, error answers, dropped
 * connections, forced 429s. Each sandbox applies them to its API and token endpoints, never to its
 * control API or HTML pages. The first matching fault wins; `times` bounds how often it fires.
 */
export interface FaultSpec {
  latency_ms?: number
  status?: number
  /** Seconds for a Retry-After header on an injected error answer (e.g. a 503). */
  retry_after?: number
  drop?: boolean
  /** A forced 429; `retry_after: null` sends none, for platforms whose 429s carry no Retry-After. */
  rate_limit?: { retry_after: number | null }
  match?: { method?: string; path?: string }
  times?: number
  /** What a sandbox reads beyond these fields (FaultRules.platformFields), e.g. the model sandboxes' stream cuts. */
  platform?: Record<string, unknown>
}

export interface Fault extends FaultSpec {
  id: string
  /** Requests it still applies to; null = unlimited. */
  remaining: number | null
}

export interface FaultRules {
  /** The lowest status an injected answer may have: 500 by default; 400 where 4xx faults matter. */
  minStatus?: 400 | 500
  /** Retry-After of a forced 429 given without one: 1 s by default, or none (null). */
  defaultRetryAfter?: number | null
  /**
   * The sandbox's own fault fields, read from the same body: their parsed values, or the problem
   * with one of them. A fault with any of them needs no kit field.
   */
  platformFields?: (
    body: Record<string, unknown>,
  ) => { ok: true; fields: Record<string, unknown> | undefined } | { ok: false; problem: string }
}

export type FaultParse = { ok: true; spec: FaultSpec } | { ok: false; problem: string }

const nonNegativeInt = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export function parseFaultSpec(body: unknown, rules: FaultRules = {}): FaultParse {
  if (!isRecord(body)) return { ok: false, problem: 'body must be a JSON object' }
  const minStatus = rules.minStatus ?? 500
  const spec: FaultSpec = {}
  if (body.latency_ms !== undefined) {
    if (!nonNegativeInt(body.latency_ms))
      return { ok: false, problem: 'latency_ms must be a non-negative integer' }
    spec.latency_ms = body.latency_ms
  }
  if (body.status !== undefined) {
    if (!nonNegativeInt(body.status) || body.status < minStatus || body.status > 599) {
      return {
        ok: false,
        problem:
          minStatus === 400 ? 'status must be a 4xx or 5xx status code' : 'status must be a 5xx status code',
      }
    }
    spec.status = body.status
  }
  if (body.retry_after !== undefined) {
    if (!nonNegativeInt(body.retry_after))
      return { ok: false, problem: 'retry_after must be a non-negative integer' }
    spec.retry_after = body.retry_after
  }
  if (body.drop !== undefined) {
    if (typeof body.drop !== 'boolean') return { ok: false, problem: 'drop must be a boolean' }
    spec.drop = body.drop
  }
  if (body.rate_limit !== undefined && body.rate_limit !== false) {
    const given = isRecord(body.rate_limit) ? body.rate_limit.retry_after : undefined
    if (given !== undefined && given !== null && !nonNegativeInt(given))
      return { ok: false, problem: 'rate_limit.retry_after must be a non-negative integer' }
    spec.rate_limit = {
      retry_after:
        given === undefined
          ? rules.defaultRetryAfter === undefined
            ? 1
            : rules.defaultRetryAfter
          : (given as number | null),
    }
  }
  if (body.match !== undefined) {
    if (!isRecord(body.match)) return { ok: false, problem: 'match must be an object' }
    const { method, path } = body.match
    if (method !== undefined && typeof method !== 'string')
      return { ok: false, problem: 'match.method must be a string' }
    if (path !== undefined && typeof path !== 'string')
      return { ok: false, problem: 'match.path must be a string' }
    spec.match = { method: method?.toUpperCase(), path }
  }
  if (body.times !== undefined) {
    if (!nonNegativeInt(body.times) || body.times === 0)
      return { ok: false, problem: 'times must be a positive integer' }
    spec.times = body.times
  }
  if (rules.platformFields) {
    const own = rules.platformFields(body)
    if (!own.ok) return own
    if (own.fields && Object.keys(own.fields).length > 0) spec.platform = own.fields
  }
  if (
    spec.latency_ms === undefined &&
    spec.status === undefined &&
    !spec.drop &&
    !spec.rate_limit &&
    !spec.platform
  ) {
    return { ok: false, problem: 'give at least one of latency_ms, status, drop, rate_limit' }
  }
  return { ok: true, spec }
}

export class FaultInjector {
  private faults: Fault[] = []

  add(spec: FaultSpec): Fault {
    const fault: Fault = { ...spec, id: randomUUID(), remaining: spec.times ?? null }
    this.faults.push(fault)
    return { ...fault }
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }))
  }

  remove(id: string): boolean {
    const before = this.faults.length
    this.faults = this.faults.filter((f) => f.id !== id)
    return this.faults.length < before
  }

  clear(): void {
    this.faults = []
  }

  /**
   * Claims the first fault matching this request. `match.path` matches as a substring of the full
   * path (prefix included) or as a prefix of the path relative to the platform (`/api/v2/…`, `/1/…`).
   */
  take(method: string, fullPath: string, relativePath: string): Fault | undefined {
    const fault = this.faults.find((f) => {
      if (f.match?.method && f.match.method !== method) return false
      const want = f.match?.path
      return !want || fullPath.includes(want) || relativePath.startsWith(want)
    })
    if (!fault) return undefined
    if (fault.remaining !== null) {
      fault.remaining -= 1
      if (fault.remaining <= 0) this.remove(fault.id)
    }
    return { ...fault }
  }
}

/** The name a request log gives the fault that hit a request. */
export function faultName(fault: Fault): string {
  if (fault.drop) return 'drop'
  if (fault.rate_limit) return 'rate_limit'
  if (fault.status) return `status_${fault.status}`
  if (fault.platform) return Object.keys(fault.platform).join('+')
  return 'latency'
}
