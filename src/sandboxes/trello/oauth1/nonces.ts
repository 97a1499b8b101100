import { MS_PER_SECOND } from '../time.ts'

/**
 * Timestamp and nonce checks (RFC 5849 §3.3). A timestamp more than 5 minutes away from the
 * sandbox clock is refused, and a nonce is refused when the same consumer key used it within
 * the last 10 minutes (twice the timestamp window, so a replay can never slip through).
 */
export const TIMESTAMP_WINDOW_MS = 300 * MS_PER_SECOND
export const NONCE_MEMORY_MS = 2 * TIMESTAMP_WINDOW_MS

export type NonceCheck = 'ok' | 'stale' | 'reused'

export class NonceCache {
  private readonly seen = new Map<string, number>()

  check(
    consumerKey: string,
    timestamp: string | undefined,
    nonce: string | undefined,
    now: number,
  ): NonceCheck {
    if (
      !timestamp ||
      !/^\d{1,12}$/.test(timestamp) ||
      Math.abs(now - Number(timestamp) * MS_PER_SECOND) > TIMESTAMP_WINDOW_MS
    )
      return 'stale'
    if (!nonce) return 'reused'
    for (const [key, expiresAt] of this.seen) if (expiresAt <= now) this.seen.delete(key)
    const key = `${consumerKey}\n${nonce}`
    if (this.seen.has(key)) return 'reused'
    this.seen.set(key, now + NONCE_MEMORY_MS)
    return 'ok'
  }

  clear(): void {
    this.seen.clear()
  }
}
