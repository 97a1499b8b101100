import type { BudgetStore, BudgetWindow, TakeResult } from './budget.ts'

/** The request log in memory: right for PGlite, whose data directory only one process can open. */
export class MemoryBudgetStore implements BudgetStore {
  private readonly logs = new Map<string, number[]>()
  private readonly blocks = new Map<string, number>()

  constructor(private readonly now: () => number = Date.now) {}

  async tryTake(windows: BudgetWindow[]): Promise<TakeResult> {
    const now = this.now()
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
    for (const key of keys) this.blocks.set(key, Math.max(this.blocks.get(key) ?? 0, untilMs))
  }

  private prune(w: BudgetWindow, now: number): number[] {
    const log = this.logs.get(w.key) ?? []
    let drop = 0
    while (drop < log.length && log[drop] <= now - w.windowMs) drop++
    const kept = drop > 0 ? log.slice(drop) : log
    this.logs.set(w.key, kept)
    return kept
  }
}
