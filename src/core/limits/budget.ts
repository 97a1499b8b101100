import { memoized } from '../memo.ts'
import { noMetrics, secondsSince, type Metrics } from '../metrics.ts'
import { rateLimited, sleep, type WaitMode } from './rate-limit-headers.ts'

/** One limit: at most `limit` requests in any `windowMs` (a sliding window). */
export interface BudgetWindow {
  key: string
  limit: number
  windowMs: number
}

export type TakeResult = { granted: true } | { granted: false; retryInMs: number }

/** Where the request log lives: in memory for one process, in PostgreSQL for several. */
export interface BudgetStore {
  /** Records one request against every window, only if all of them have room. */
  tryTake(windows: BudgetWindow[]): Promise<TakeResult>
  /** The platform said stop (a 429): no window of these keys grants anything before `untilMs`. */
  block(keys: string[], untilMs: number): Promise<void>
}

/**
 * Clocks and network delays differ between us and the platform: a request sent just inside our
 * window may arrive just outside its. Each window is stretched by this much to absorb that.
 */
export const WINDOW_MARGIN_MS = 150

/** How often a store sweeps out the records of windows and pauses that have passed. */
export const SWEEP_EVERY_MS = 60_000
/**
 * The longest window a budget may have. A shared store sweeps out requests older than this without
 * knowing each key's window (platforms' windows are seconds: docs/platforms/).
 */
export const MAX_WINDOW_MS = 60 * 60_000
const MIN_RETRY_MS = 5

interface Waiter {
  resolve(): void
  reject(err: unknown): void
  deadline: number
}

/**
 * Every request on one credential draws on one budget. Requests that must wait queue per agent and
 * are served round-robin across agents, so a busy agent cannot starve a quiet one that shares the
 * token. Only one request per process probes the store for a given set of windows at a time.
 */
export class RateBudget {
  private readonly lanes = new Map<string, Lane>()
  /** Callers pass the same windows array for one credential call after call: prepare it once. */
  private readonly prepared = new WeakMap<BudgetWindow[], { stretched: BudgetWindow[]; laneKey: string }>()

  constructor(
    private readonly store: BudgetStore,
    private readonly metrics: Metrics = noMetrics,
  ) {}

  /** `platform` labels the waits this take reports to the metrics (docs/operating.md). */
  async take(windows: BudgetWindow[], agentId: string, mode: WaitMode, platform = 'unknown'): Promise<void> {
    if (windows.length === 0) return
    const { stretched, laneKey } = memoized(this.prepared, windows, prepare)
    if (mode.kind === 'fail') {
      const result = await this.store.tryTake(stretched)
      if (!result.granted) throw rateLimited(result.retryInMs)
      return
    }
    let lane = this.lanes.get(laneKey)
    // Nobody is waiting on these windows: ask the store straight away. Queueing (and with it
    // fairness between agents) only matters once someone has to wait.
    if (!lane) {
      const result = await this.store.tryTake(stretched)
      if (result.granted) return
      lane = this.lanes.get(laneKey)
    }
    if (!lane) {
      lane = new Lane(this.store, stretched, () => this.lanes.delete(laneKey))
      this.lanes.set(laneKey, lane)
    }
    // Only a request that queues has waited: the common path above reports nothing.
    const waitStart = performance.now()
    try {
      await lane.enqueue(agentId, Date.now() + mode.maxWaitMs)
      this.metrics.rateLimitWait(platform, 'granted', secondsSince(waitStart))
    } catch (err) {
      // A wait that ran out; a store that failed meanwhile is an error of its own, not a rate limit.
      if ((err as { code?: unknown }).code === 'rate_limited')
        this.metrics.rateLimitWait(platform, 'rate_limited', secondsSince(waitStart))
      throw err
    }
  }

  block(keys: string[], untilMs: number): Promise<void> {
    return this.store.block(keys, untilMs)
  }
}

/** Windows stretched by the margin, and the key of the lane their waiters queue in. */
function prepare(windows: BudgetWindow[]): { stretched: BudgetWindow[]; laneKey: string } {
  const tooLong = windows.find((w) => w.windowMs > MAX_WINDOW_MS)
  if (tooLong) throw new Error(`budget window ${tooLong.key} is longer than MAX_WINDOW_MS`)
  return {
    stretched: windows.map((w) => ({ ...w, windowMs: w.windowMs + WINDOW_MARGIN_MS })),
    laneKey: windows
      .map((w) => w.key)
      .sort()
      .join('|'),
  }
}

class Lane {
  private readonly queues = new Map<string, Waiter[]>()
  /** Agents in round-robin order; the head is served next. */
  private readonly order: string[] = []
  private pumping = false

  constructor(
    private readonly store: BudgetStore,
    private readonly windows: BudgetWindow[],
    private readonly onIdle: () => void,
  ) {}

  enqueue(agentId: string, deadline: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let queue = this.queues.get(agentId)
      if (!queue) {
        queue = []
        this.queues.set(agentId, queue)
        this.order.push(agentId)
      }
      queue.push({ resolve, reject, deadline })
      if (!this.pumping) void this.pump()
    })
  }

  private async pump(): Promise<void> {
    this.pumping = true
    try {
      while (this.order.length > 0) {
        const agentId = this.order[0]
        const queue = this.queues.get(agentId)!
        const waiter = queue[0]
        let result: TakeResult
        try {
          result = await this.store.tryTake(this.windows)
        } catch (err) {
          this.dequeue(agentId).reject(err)
          continue
        }
        if (result.granted) {
          this.dequeue(agentId).resolve()
          continue
        }
        this.expire(Date.now() + result.retryInMs)
        if (this.order.length === 0) break
        if (waiter === this.queues.get(this.order[0])?.[0])
          await sleep(Math.max(MIN_RETRY_MS, result.retryInMs))
      }
    } finally {
      this.pumping = false
      if (this.order.length === 0) this.onIdle()
    }
  }

  /** Serves the head of this agent's queue and moves the agent to the back of the round. */
  private dequeue(agentId: string): Waiter {
    const queue = this.queues.get(agentId)!
    const waiter = queue.shift()!
    this.order.shift()
    if (queue.length > 0) this.order.push(agentId)
    else this.queues.delete(agentId)
    return waiter
  }

  /** Fails, at once, every waiter whose deadline comes before budget will. */
  private expire(nextChanceAt: number): void {
    for (const agentId of [...this.order]) {
      const queue = this.queues.get(agentId)!
      const keep = queue.filter((w) => {
        if (w.deadline >= nextChanceAt) return true
        w.reject(rateLimited(nextChanceAt - Date.now()))
        return false
      })
      if (keep.length === 0) {
        this.queues.delete(agentId)
        this.order.splice(this.order.indexOf(agentId), 1)
      } else {
        this.queues.set(agentId, keep)
      }
    }
  }
}
