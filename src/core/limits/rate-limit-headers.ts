import { AppError } from '../errors.ts'

/** How a platform announces its limits; declared as data in each platform.ts. */
export interface RateLimitFacts {
  /** Header with how many requests remain in the current window. */
  remainingHeader?: string
  /** Header with the window's total, reported in API Call results. */
  limitHeader?: string
  /** Header saying when the window resets, and in which unit. */
  resetHeader?: string
  resetUnit?: 'delta-seconds' | 'epoch-seconds' | 'epoch-ms'
  /** Used when a 429 carries no Retry-After or reset header. */
  defaultRetryAfterSeconds: number
}

export type WaitMode = { kind: 'wait'; maxWaitMs: number } | { kind: 'fail' }

/**
 * How long a response says the credential must rest: the Retry-After (or reset) of a 429, or the
 * time to the reset when the remaining count reached zero. 0 when it may go on.
 */
export function pauseAfter(
  facts: RateLimitFacts,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  now = Date.now(),
): number {
  if (status === 429)
    return retryAfterMs(headers) ?? resetMs(facts, headers, now) ?? facts.defaultRetryAfterSeconds * 1000
  if (facts.remainingHeader && Number(header(headers, facts.remainingHeader)) === 0)
    return resetMs(facts, headers, now) ?? 0
  return 0
}

export function rateLimited(waitMs: number): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000))
  return new AppError(
    'rate_limited',
    `the platform's rate limit is exhausted; retry after ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  )
}

export function header(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const value = header(headers, 'retry-after')
  if (value === undefined || value.trim() === '') return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/**
 * A reset given as a moment (epoch seconds or ms) is on the platform's clock, not ours: resuming
 * exactly then can land just before the platform's window turns over and earn a 429. Waiting this
 * much longer absorbs the difference between the clocks.
 */
export const CLOCK_SKEW_MARGIN_MS = 250

function resetMs(
  facts: RateLimitFacts,
  headers: Record<string, string | string[] | undefined>,
  now: number,
): number | undefined {
  if (!facts.resetHeader) return undefined
  const value = Number(header(headers, facts.resetHeader))
  if (!Number.isFinite(value) || value < 0) return undefined
  switch (facts.resetUnit ?? 'delta-seconds') {
    case 'delta-seconds':
      return value * 1000
    case 'epoch-seconds':
      return Math.max(0, value * 1000 - now) + CLOCK_SKEW_MARGIN_MS
    case 'epoch-ms':
      return Math.max(0, value - now) + CLOCK_SKEW_MARGIN_MS
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
