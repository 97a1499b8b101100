import { setTimeout as sleep } from 'node:timers/promises'
import { AppError } from '../errors.ts'
import type { Effect } from '../tools/define.ts'

// When a failed step of a run is tried again (docs/agents.md, "Retries"). The API client already
// retries single requests for a few seconds (core/limits/retry.ts); this is the run's own, longer
// patience on top, and the one place that decides it.

/** Attempts of one step, the first included. */
export const MAX_STEP_ATTEMPTS = 4
/** Waits between attempts, before jitter (tests pass shorter ones through createServices). */
export const STEP_BACKOFF_MS: readonly number[] = [2_000, 10_000, 60_000]
/** A wait longer than this frees the worker: the run goes back to the queue until then. */
export const MAX_INLINE_WAIT_MS = 15_000

/**
 * Reads are retried after any transient failure. Writes only when the platform said it did not
 * process the request (429): after a 5xx or a lost answer the write may have happened, and doing it
 * again could create a second ticket.
 */
export function retryable(effect: Effect, err: unknown): boolean {
  if (!(err instanceof AppError)) return false
  if (err.code === 'rate_limited') return true
  if (err.code !== 'upstream_error') return false
  const status = err.extras.upstreamStatus
  const transient = status === undefined || status >= 500
  return transient && effect === 'read'
}

/** Honours the platform's Retry-After where it gave one; else backs off with jitter. */
export function retryDelayMs(
  attempt: number,
  err: unknown,
  backoffMs: readonly number[] = STEP_BACKOFF_MS,
): number {
  const retryAfter = err instanceof AppError ? err.extras.retryAfterSeconds : undefined
  if (retryAfter !== undefined) return Math.max(0, retryAfter * 1000)
  const base = backoffMs[Math.min(attempt - 1, backoffMs.length - 1)]
  return Math.round(base * (0.75 + Math.random() / 2))
}

/**
 * Waits between two attempts of a run in hand, unless the worker stops first. False when it stopped
 * (or the wait is too long to hold a worker): the caller hands the run back to resume at the same
 * time, so a shutdown never waits out a retry's backoff and the retry is not lost.
 */
export async function waitInHand(ms: number, stopping: AbortSignal): Promise<boolean> {
  if (ms > MAX_INLINE_WAIT_MS) return false
  try {
    await sleep(ms, undefined, { signal: stopping })
    return true
  } catch {
    return false // aborted: the only way this sleep rejects
  }
}
