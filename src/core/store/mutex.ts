/**
 * A FIFO async mutex: waiters are served in arrival order, so nobody starves. A waiter may ask to go
 * `first`, for work someone outside is waiting on while the ordinary waiters can wait (the embedded
 * store's webhook intake, database.ts): such waiters are served in their own order ahead of the
 * ordinary ones, but never twice in a row while an ordinary one waits, so neither line can starve the
 * other (a first-lane user that always has its next turn queued took every turn).
 */
export class Mutex {
  private locked = false
  private readonly waiters: Array<() => void> = []
  private readonly firstWaiters: Array<() => void> = []
  /** Whether the holder now (or the last one) came from the first lane. */
  private firstHeld = false

  /**
   * `turnBetweenHolders`: the next holder is let in only after a turn of the event loop. A lock
   * handed on at once runs its next holder in the same turn (promises do not wait for the loop), so
   * the embedded store, whose statements run on this thread, ran every queued statement back to back
   * without reading a socket: 300 of them held the loop for 0.55 s (database.ts).
   */
  constructor(private readonly turnBetweenHolders = false) {}

  async lock(first = false): Promise<void> {
    if (!this.locked) {
      this.locked = true
      this.firstHeld = first
      return
    }
    await new Promise<void>((resolve) => (first ? this.firstWaiters : this.waiters).push(resolve))
  }

  unlock(): void {
    if (!this.turnBetweenHolders || (this.firstWaiters.length === 0 && this.waiters.length === 0))
      this.handOn()
    // Still locked meanwhile: whoever comes during the turn waits in line, by the lanes' rule.
    else setImmediate(() => this.handOn())
  }

  private handOn(): void {
    const fromFirst = this.firstWaiters.length > 0 && !(this.firstHeld && this.waiters.length > 0)
    const next = fromFirst ? this.firstWaiters.shift() : this.waiters.shift()
    this.firstHeld = fromFirst
    if (next) next()
    else this.locked = false
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.lock()
    try {
      return await fn()
    } finally {
      this.unlock()
    }
  }
}

/** One mutex per key, dropped when idle so keys do not accumulate. */
export class KeyedMutex {
  private readonly mutexes = new Map<string, { mutex: Mutex; users: number }>()

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let entry = this.mutexes.get(key)
    if (!entry) {
      entry = { mutex: new Mutex(), users: 0 }
      this.mutexes.set(key, entry)
    }
    entry.users++
    try {
      return await entry.mutex.run(fn)
    } finally {
      if (--entry.users === 0) this.mutexes.delete(key)
    }
  }
}
