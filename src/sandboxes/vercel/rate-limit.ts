import { FixedWindows, type WindowDecision } from '../kit/rate-window.ts'
import { isRecord, jsonResponse, type SandboxResponse } from './http.ts'

/**
 * Per-token, per-endpoint fixed windows on the sandbox clock (the kit's FixedWindows). Vercel
 * limits "per endpoint" (V-ERR); the numbers are not published, so the defaults are the sandbox's choice:
 * 100 requests per 60 s per endpoint per token, and `POST /v13/deployments` 100 per hour
 * (the community figure in V-SKILL [3P]). All overridable through `PUT /_control/rate-limits`.
 */
export interface LimitRule {
  limit: number
  window_ms: number
}

export interface RateLimitConfig {
  disabled: boolean
  default: LimitRule
  endpoints: Record<string, LimitRule>
}

export const defaultRateLimitConfig = (): RateLimitConfig => ({
  disabled: false,
  default: { limit: 100, window_ms: 60_000 },
  endpoints: { 'POST /v13/deployments': { limit: 100, window_ms: 3_600_000 } },
})

export type Decision = WindowDecision

export class RateLimiter {
  config = defaultRateLimitConfig()
  private readonly windows = new FixedWindows()

  /** undefined when limiting is disabled. */
  take(key: string, endpoint: string, now: number): Decision | undefined {
    if (this.config.disabled) return undefined
    const rule = this.config.endpoints[endpoint] ?? this.config.default
    return this.windows.take(`${key} ${endpoint}`, rule.limit, rule.window_ms, now)
  }

  /** Applies a `PUT /_control/rate-limits` body; returns a problem string on bad input. */
  configure(body: unknown): string | undefined {
    if (!isRecord(body)) return 'body must be a JSON object'
    const next = { ...this.config, endpoints: { ...this.config.endpoints } }
    const rule = (value: unknown, name: string): LimitRule | string => {
      if (!isRecord(value)) return `${name} must be an object`
      const limit = value.limit ?? next.default.limit
      const windowMs = value.window_ms ?? next.default.window_ms
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)
        return `${name}.limit must be a non-negative integer`
      if (typeof windowMs !== 'number' || !Number.isInteger(windowMs) || windowMs <= 0)
        return `${name}.window_ms must be a positive integer`
      return { limit, window_ms: windowMs }
    }
    if (body.disabled !== undefined) {
      if (typeof body.disabled !== 'boolean') return 'disabled must be a boolean'
      next.disabled = body.disabled
    }
    if (body.limit !== undefined || body.window_ms !== undefined) {
      const r = rule({ limit: body.limit, window_ms: body.window_ms }, 'default')
      if (typeof r === 'string') return r
      next.default = r
    }
    if (body.default !== undefined) {
      const r = rule(body.default, 'default')
      if (typeof r === 'string') return r
      next.default = r
    }
    if (body.endpoints !== undefined) {
      if (!isRecord(body.endpoints))
        return 'endpoints must be an object of "METHOD /path": {limit, window_ms}'
      for (const [endpoint, value] of Object.entries(body.endpoints)) {
        if (value === null) {
          delete next.endpoints[endpoint]
          continue
        }
        const r = rule(value, `endpoints["${endpoint}"]`)
        if (typeof r === 'string') return r
        next.endpoints[endpoint] = r
      }
    }
    this.config = next
    this.windows.clear()
    return undefined
  }

  reset(): void {
    this.config = defaultRateLimitConfig()
    this.windows.clear()
  }
}

export function rateLimitHeaders(d: Decision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-reset': String(Math.ceil(d.resetMs / 1000)),
  }
}

/** 429 body per V-ERR, plus `Retry-After` in seconds (read by Vercel's Terraform client, V-TF). */
export function rateLimited(limit: number, resetMs: number, now: number): SandboxResponse {
  const retryAfter = Math.max(1, Math.ceil((resetMs - now) / 1000))
  const reset = Math.ceil(resetMs / 1000)
  return jsonResponse(
    429,
    {
      error: {
        code: 'rate_limited',
        message: `The rate limit of ${limit} exceeded. Try again in ${retryAfter} seconds`,
        limit: { remaining: 0, reset, resetMs, total: limit },
      },
    },
    {
      'retry-after': String(retryAfter),
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(reset),
    },
  )
}
