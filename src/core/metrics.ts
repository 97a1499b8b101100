/**
 * What core reports for operators to count (docs/operating.md). Core only emits; the server turns
 * these into whatever format it serves. Labels are catalogue facts and error codes, never tenant data
 * (no account names, no user or integration ids), so any reader of the numbers learns nothing private.
 * Each call must stay cheap: it sits on the road of every tool step and request.
 */
export interface Metrics {
  /** One tool step run, finished: `outcome` is `ok` or the error code it failed with. */
  toolCall(toolId: string, platform: string, outcome: string, seconds: number): void
  /** A request waited for rate budget (`outcome`: `granted`, or `rate_limited` when the wait ran out). */
  rateLimitWait(platform: string, outcome: 'granted' | 'rate_limited', seconds: number): void
  /** An error answered to a caller, by its code (docs/errors.md). */
  error(code: string): void
  /** A platform event through the intake or a poll: `accepted` (runs enqueued), `duplicate`, or `unmatched` (no active subscription wanted it). */
  triggerEvent(platform: string, outcome: 'accepted' | 'duplicate' | 'unmatched'): void
  /** A run claimed by a worker for its first execution, with how long it waited in the queue. */
  runStarted(queuedSeconds: number): void
  /** A run that ended, by its final status. */
  runFinished(status: 'succeeded' | 'failed' | 'cancelled' | 'budget_exhausted' | 'escalated'): void
}

/** For code paths nobody observes (tools, scripts, unit tests). */
export const noMetrics: Metrics = {
  toolCall() {},
  rateLimitWait() {},
  error() {},
  triggerEvent() {},
  runStarted() {},
  runFinished() {},
}

/** Seconds since a `performance.now()` reading. */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000
}
