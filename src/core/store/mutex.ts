/** A FIFO async mutex: waiters are served in arrival order, so nobody starves. */
export class Mutex {
  private locked = false
  private readonly waiters: Array<() => void> = []

  async lock(): Promise<void> {
    if (!this.locked) {
      this.locked = true
      return
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve))
  }

  unlock(): void {
    const next = this.waiters.shift()
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
