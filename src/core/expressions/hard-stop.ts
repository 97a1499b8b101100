/**
 * When a batch in a template worker is stopped (docs/security.md, "Templates"): after HARD_STOP_MS
 * of the worker's time on a core. Template workers run at the lowest priority, below the service's
 * thread (thread-priority.js), so on a busy machine a worker may wait for a core; counting that wait
 * would stop, and hold back for ten minutes, a small template whose only fault was the machine's
 * load. A batch that waits past MAX_WAIT_MS is stopped all the same, so a starved worker frees its
 * place in the pool. Where a thread's time on a core is not known (not Linux), the wall clock counts.
 */
export const HARD_STOP_MS = 1_000
export const MAX_WAIT_MS = 10 * HARD_STOP_MS

export class HardStop {
  private readonly startedAt: number
  private readonly cpuAtStart: number | undefined

  /** `cpuMs` reads the worker thread's time on a core (undefined when unknown); `now` the wall clock. */
  constructor(
    private readonly cpuMs: () => number | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now()
    this.cpuAtStart = cpuMs()
  }

  /** Whether the batch has used up its time. */
  due(): boolean {
    const waited = this.now() - this.startedAt
    if (waited >= MAX_WAIT_MS) return true
    if (this.cpuAtStart === undefined) return waited >= HARD_STOP_MS
    const cpu = this.cpuMs()
    return cpu !== undefined && cpu - this.cpuAtStart >= HARD_STOP_MS
  }
}
