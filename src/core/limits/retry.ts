import type { HttpMethod } from '../http/method.ts'

// The retry decision lives here and nowhere else.

/** Total time a pre-built step may spend waiting on rate limits and retries before giving up. */
export const MAX_RETRY_WAIT_MS = 30_000
export const MAX_ATTEMPTS = 4
const BACKOFF_BASE_MS = 200

const IDEMPOTENT: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT', 'DELETE'])

export type Outcome =
  | { kind: 'rate_limited' } // 429: the platform refused before doing anything
  | { kind: 'server_error'; status: number }
  | { kind: 'not_sent' } // connection refused or reset before the request was written
  | { kind: 'lost' } // the connection died after the request went out: it may have been processed

/**
 * A non-idempotent request is retried only when the platform says it was not processed (a 429, or a
 * connection that never carried it). Repeating a POST after a lost answer could create a ticket twice.
 */
export function shouldRetry(method: HttpMethod, outcome: Outcome): boolean {
  switch (outcome.kind) {
    case 'rate_limited':
    case 'not_sent':
      return true
    case 'server_error':
      return IDEMPOTENT.has(method) && outcome.status !== 501
    case 'lost':
      return IDEMPOTENT.has(method)
  }
}

export function backoffMs(attempt: number): number {
  const exp = BACKOFF_BASE_MS * 2 ** (attempt - 1)
  return exp / 2 + Math.random() * (exp / 2)
}
