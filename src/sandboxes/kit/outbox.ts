/**
 * What the three sandboxes' outgoing webhook deliveries share (Trello's webhooks, Zendesk's event
 * invocations, Vercel's account webhooks): a POST with a deadline that never follows a redirect,
 * attempts on real-time timers that a reset cancels at once, a bounded record, and a wait for
 * everything to settle. Each platform keeps its own record shape, signature and retry rules.
 */

/** How one attempt ended: the receiver's status, or why there was none. */
export interface PostOutcome {
  status: number | null
  error: string | null
  retryAfter: string | null
  durationMs: number
}

export async function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  const started = Date.now()
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    })
    await response.body?.cancel().catch(() => undefined)
    return {
      status: response.status,
      error: null,
      retryAfter: response.headers.get('retry-after'),
      durationMs: Date.now() - started,
    }
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
    return {
      status: null,
      error: cause instanceof Error ? cause.message || cause.name : String(cause),
      retryAfter: null,
      durationMs: Date.now() - started,
    }
  }
}

/** The timers of scheduled attempts, and the attempts in flight, so a reset or close stops them all. */
export class AttemptTimers {
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly inFlight = new Set<Promise<void>>()
  private stopped = false

  schedule(delayMs: number, attempt: () => Promise<void>): void {
    if (this.stopped) return
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      const running = attempt()
      this.inFlight.add(running)
      void running.finally(() => this.inFlight.delete(running))
    }, delayMs)
    timer.unref()
    this.timers.add(timer)
  }

  /** Cancels every scheduled attempt; attempts already sending finish. */
  cancel(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }

  /** Cancels, refuses new attempts, and waits for those already sending. */
  async close(): Promise<void> {
    this.stopped = true
    this.cancel()
    await Promise.allSettled([...this.inFlight])
  }

  get closed(): boolean {
    return this.stopped
  }
}

/** How many deliveries a sandbox keeps for its control API (the oldest settled ones go first). */
export const MAX_KEPT_DELIVERIES = 1000

export function trimSettled(records: Array<{ state: string }>, max = MAX_KEPT_DELIVERIES): void {
  while (records.length > max) {
    const index = records.findIndex((d) => d.state !== 'pending')
    if (index < 0) break
    records.splice(index, 1)
  }
}

/** Resolves true once `pending()` is false, or false after `timeoutMs`. */
export async function settledWithin(pending: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (pending()) {
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return true
}
