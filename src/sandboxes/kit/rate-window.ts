/**
 * The counting behind every sandbox's rate limits: fixed windows aligned to multiples of their
 * length on the sandbox clock, so a test that advances the clock by one window gets a fresh budget
 * exactly. The numbers, headers and 429 bodies are each platform's and stay in its sandbox.
 */
export interface Window {
  /** Epoch ms at which the window began. */
  start: number
  /** Epoch ms at which it ends and the count starts again. */
  end: number
  count: number
}

export interface WindowDecision {
  allowed: boolean
  limit: number
  /** What is left after this request (0 when refused). */
  remaining: number
  /** Epoch ms at which the window resets. */
  resetMs: number
}

export class FixedWindows {
  private readonly windows = new Map<string, Window>()

  /** The current window of `id`, new (count 0) when the last one has ended. Counting is the caller's. */
  current(id: string, lengthMs: number, now: number): Window {
    const start = Math.floor(now / lengthMs) * lengthMs
    let window = this.windows.get(id)
    if (!window || window.start !== start) {
      window = { start, end: start + lengthMs, count: 0 }
      this.windows.set(id, window)
    }
    return window
  }

  /** Counts one request against `id`'s budget of `limit` per window; a refused request is not counted. */
  take(id: string, limit: number, lengthMs: number, now: number): WindowDecision {
    const window = this.current(id, lengthMs, now)
    if (window.count >= limit) return { allowed: false, limit, remaining: 0, resetMs: window.end }
    window.count += 1
    return { allowed: true, limit, remaining: limit - window.count, resetMs: window.end }
  }

  clear(): void {
    this.windows.clear()
  }
}
