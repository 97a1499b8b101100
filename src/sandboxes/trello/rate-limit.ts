import { FixedWindows, type Window } from '../kit/rate-window.ts'
import { rateLimited } from './errors.ts'
import type { SandboxResponse } from './http.ts'

/**
 * Trello's API limits (sources: Trello rate limits, T-RL): 300 requests per 10 s per API key and 100 per 10 s per
 * token. Trello does not say how its windows move; the sandbox uses the kit's fixed windows
 * (aligned to multiples of the interval on the sandbox clock). Refused requests do not use up
 * the budget. The separate 100/900 s limit on `/1/members/` is not emulated.
 */
export interface RateLimitSettings {
  tokenMax: number
  keyMax: number
  intervalMs: number
  disabled: boolean
}

export const DEFAULT_RATE_LIMITS: Readonly<RateLimitSettings> = {
  tokenMax: 100,
  keyMax: 300,
  intervalMs: 10_000,
  disabled: false,
}

export type RateDecision =
  { allowed: true; headers: Record<string, string> } | { allowed: false; response: SandboxResponse }

export class RateLimiter {
  settings: RateLimitSettings = { ...DEFAULT_RATE_LIMITS }
  private readonly windows = new FixedWindows()

  private window(id: string, now: number): Window {
    return this.windows.current(id, this.settings.intervalMs, now)
  }

  /** Header names and values as captured in 2020 (T-TACO). */
  private headers(key: Window, token: Window | null, used: number): Record<string, string> {
    const { intervalMs, keyMax, tokenMax } = this.settings
    const headers: Record<string, string> = {}
    if (token) {
      headers['x-rate-limit-api-token-interval-ms'] = String(intervalMs)
      headers['x-rate-limit-api-token-max'] = String(tokenMax)
      headers['x-rate-limit-api-token-remaining'] = String(Math.max(0, tokenMax - token.count - used))
    }
    headers['x-rate-limit-api-key-interval-ms'] = String(intervalMs)
    headers['x-rate-limit-api-key-max'] = String(keyMax)
    headers['x-rate-limit-api-key-remaining'] = String(Math.max(0, keyMax - key.count - used))
    return headers
  }

  /** Takes one request from the key's and the token's budgets (token null for control `act`). */
  take(key: string, token: string | null, now: number): RateDecision {
    if (this.settings.disabled) return { allowed: true, headers: {} }
    const keyWindow = this.window(`key:${key}`, now)
    const tokenWindow = token ? this.window(`token:${token}`, now) : null
    if (keyWindow.count >= this.settings.keyMax)
      return { allowed: false, response: rateLimited('key', this.headers(keyWindow, tokenWindow, 0)) }
    if (tokenWindow && tokenWindow.count >= this.settings.tokenMax) {
      return { allowed: false, response: rateLimited('token', this.headers(keyWindow, tokenWindow, 0)) }
    }
    const headers = this.headers(keyWindow, tokenWindow, 1)
    keyWindow.count += 1
    if (tokenWindow) tokenWindow.count += 1
    return { allowed: true, headers }
  }

  clear(): void {
    this.windows.clear()
    this.settings = { ...DEFAULT_RATE_LIMITS }
  }
}
