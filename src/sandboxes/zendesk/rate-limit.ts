import { FixedWindows } from '../kit/rate-window.ts'
import { textResponse, type SandboxResponse } from './http.ts'
import { PLAN_REQUESTS_PER_MINUTE, type Account } from './model.ts'
import { MS_PER_SECOND } from './time.ts'

/**
 * Account-wide API rate limit (sources: Zendesk rate limits). Zendesk does not document its window
 * algorithm; the sandbox uses a fixed 60-second window aligned to the clock minute, which makes
 * `ratelimit-reset` (seconds to the window's end) and tests with an advanced clock exact.
 */
export const RATE_LIMIT_WINDOW_MS = 60 * MS_PER_SECOND

/** Plain-text 429 body; the wording is what Zendesk clients report seeing (airbyte #11035, arduino #15). */
export const RATE_LIMIT_MESSAGE = 'Number of allowed API requests per minute exceeded'

export interface RateLimitDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the current window ends. */
  resetSeconds: number
}

export function accountLimit(account: Account): number {
  return account.rateLimitPerMinute ?? PLAN_REQUESTS_PER_MINUTE[account.plan]
}

export class RateLimiter {
  private readonly windows = new FixedWindows()

  take(account: Account, now: number): RateLimitDecision {
    const { allowed, limit, remaining, resetMs } = this.windows.take(
      account.subdomain,
      accountLimit(account),
      RATE_LIMIT_WINDOW_MS,
      now,
    )
    return {
      allowed,
      limit,
      remaining,
      resetSeconds: Math.max(1, Math.ceil((resetMs - now) / MS_PER_SECOND)),
    }
  }

  clear(): void {
    this.windows.clear()
  }
}

/** Headers on every API response (Z-RL, Z-RLBP). */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'x-rate-limit': String(decision.limit),
    'x-rate-limit-remaining': String(decision.remaining),
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  }
}

/** 429 as captured (Z-429CAP): text/plain body, Retry-After in seconds, remaining 0. */
export function tooManyRequests(limit: number, retryAfterSeconds: number): SandboxResponse {
  return textResponse(429, RATE_LIMIT_MESSAGE, {
    'retry-after': String(retryAfterSeconds),
    'x-rate-limit': String(limit),
    'x-rate-limit-remaining': '0',
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': '0',
    'ratelimit-reset': String(retryAfterSeconds),
  })
}
