import { SWEEP_EVERY_MS, type BudgetStore, type BudgetWindow, type TakeResult } from './budget.ts'

/** Tracked keys past which a sweep runs at once rather than on its schedule. */
export const SWEEP_AT_KEYS = 10_000

/**
 * The request log in memory: right for PGlite, whose data directory only one process can open.
 * Keys whose window and pause have passed are swept out (every SWEEP_EVERY_MS, or at once past
 * SWEEP_AT_KEYS), so tokens that are no longer used do not stay for ever.
 */
export class MemoryBudgetStore implements BudgetStore {
  private readonly logs = new Map<string, { windowMs: number; times: number[] }>()
  private readonly blocks = new Map<string, number>()
  private lastSweep: number

  constructor(private readonly now: () => number = Date.now) {
    this.lastSweep = now()
  }

  async tryTake(windows: BudgetWindow[]): Promise<TakeResult> {
    const now = this.now()
    this.sweepIfDue(now)
    let retryInMs = 0
    for (const w of windows) {
      const blockedUntil = this.blocks.get(w.key) ?? 0
      if (blockedUntil > now) retryInMs = Math.max(retryInMs, blockedUntil - now)
      if (!Number.isFinite(w.limit)) continue // no fixed budget: only pauses apply
      const log = this.prune(w, now)
      if (log.length >= w.limit) retryInMs = Math.max(retryInMs, log[log.length - w.limit] + w.windowMs - now)
    }
    if (retryInMs > 0) return { granted: false, retryInMs }
    for (const w of windows) if (Number.isFinite(w.limit)) this.prune(w, now).push(now)
    return { granted: true }
  }

  async block(keys: string[], untilMs: number): Promise<void> {
    this.sweepIfDue(this.now())
    for (const key of keys) this.blocks.set(key, Math.max(this.blocks.get(key) ?? 0, untilMs))
  }

  /** How many keys the store tracks: request logs and pauses. */
  size(): { logs: number; blocks: number } {
    return { logs: this.logs.size, blocks: this.blocks.size }
  }

  private prune(w: BudgetWindow, now: number): number[] {
    const log = this.logs.get(w.key)?.times ?? []
    let drop = 0
    while (drop < log.length && log[drop] <= now - w.windowMs) drop++
    const kept = drop > 0 ? log.slice(drop) : log
    this.logs.set(w.key, { windowMs: w.windowMs, times: kept })
    return kept
  }

  private sweepIfDue(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS && this.logs.size + this.blocks.size < SWEEP_AT_KEYS) return
    this.lastSweep = now
    for (const [key, log] of this.logs) {
      if (log.times.length === 0 || log.times[log.times.length - 1] <= now - log.windowMs)
        this.logs.delete(key)
    }
    for (const [key, until] of this.blocks) if (until <= now) this.blocks.delete(key)
  }
}
