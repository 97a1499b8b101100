/**
 * Where a waiter waits (Mutex): `ordinary` in arrival order; `first` ahead of the ordinary ones, but
 * never twice in a row while an ordinary one waits; `next` right after the holder now, ahead of both,
 * but never twice in a row while anyone else waits.
 */
export type Lane = 'ordinary' | 'first' | 'next'

/**
 * Waiters in lines by key, one line served at a time in turn, the line served longest ago first
 * (Map order); each line in arrival order. One key makes it a plain FIFO.
 */
class LinesInTurn {
  private readonly lines = new Map<string, Array<() => void>>()
  length = 0

  push(key: string, waiter: () => void): void {
    const line = this.lines.get(key)
    if (line) line.push(waiter)
    else this.lines.set(key, [waiter])
    this.length++
  }

  shift(): (() => void) | undefined {
    const head = this.lines.entries().next()
    if (head.done) return undefined
    const [key, line] = head.value
    const waiter = line.shift()
    this.lines.delete(key)
    if (line.length) this.lines.set(key, line)
    this.length--
    return waiter
  }
}

/**
 * A FIFO async mutex: waiters are served in arrival order, so nobody starves. A waiter may ask to go
 * `first`, for work someone outside is waiting on while the ordinary waiters can wait (the embedded
 * store's webhook intake, database.ts): such waiters are served in their own order ahead of the
 * ordinary ones, but never twice in a row while an ordinary one waits, so neither line can starve the
 * other (a first-lane user that always has its next turn queued took every turn). A waiter in the
 * `next` lane (the run worker's claim, which comes one at a time) goes after the holder now, before
 * both: in the `first` lane it waited behind the intake's next write and the ordinary statement that
 * write alternates with, while a run of another owner, already written, waited for that claim
 * (docs/scaling.md, "One user's burst"). It takes no turn from the alternation of the other two, and
 * never two in a row, so between two ordinary turns at most one first and two next holders go.
 *
 * Within a lane, waiters that give a `key` wait in a line per key, and the lines take turns: the
 * intake's routes read again in the background (core/triggers/routes.ts, seven statements each, every
 * second per webhook in use) wait in a line of their own, so another owner's shared write waits for
 * one of them at most, not for every one queued before it. On the embedded store the ordinary lane's
 * key is the statement's owner (statement-owner.ts, set where a run or a delivery is handled): a run of
 * another owner's waited 724 ms behind one owner's burst of run statements queued before it, and now
 * waits for one of them at most. Statements of no owner (sweeps, shared writes) keep their order in a
 * line of their own, which takes its turn like an owner's.
 */
export class Mutex {
  private locked = false
  private readonly waiters = new LinesInTurn()
  private readonly firstWaiters = new LinesInTurn()
  private readonly nextWaiters = new LinesInTurn()
  /** Whether the last holder of the first and ordinary lanes came from the first lane. */
  private firstHeld = false
  /** Whether the holder now (or the last one) came from the next lane. */
  private nextHeld = false

  /**
   * `turnBetweenHolders`: the next holder is let in only after a turn of the event loop. A lock
   * handed on at once runs its next holder in the same turn (promises do not wait for the loop), so
   * the embedded store, whose statements run on this thread, ran every queued statement back to back
   * without reading a socket: 300 of them held the loop for 0.55 s (database.ts).
   */
  constructor(private readonly turnBetweenHolders = false) {}

  async lock(lane: Lane = 'ordinary', key = ''): Promise<void> {
    if (!this.locked) {
      this.locked = true
      this.held(lane)
      return
    }
    await new Promise<void>((resolve) => this.line(lane).push(key, resolve))
  }

  unlock(): void {
    const waiting = this.waiters.length + this.firstWaiters.length + this.nextWaiters.length
    if (!this.turnBetweenHolders || waiting === 0) this.handOn()
    // Still locked meanwhile: whoever comes during the turn waits in line, by the lanes' rule.
    else setImmediate(() => this.handOn())
  }

  private line(lane: Lane): LinesInTurn {
    return lane === 'next' ? this.nextWaiters : lane === 'first' ? this.firstWaiters : this.waiters
  }

  private held(lane: Lane): void {
    this.nextHeld = lane === 'next'
    if (lane !== 'next') this.firstHeld = lane === 'first'
  }

  private handOn(): void {
    const others = this.waiters.length + this.firstWaiters.length
    let lane: Lane
    if (this.nextWaiters.length && !(this.nextHeld && others)) lane = 'next'
    else if (this.firstWaiters.length && !(this.firstHeld && this.waiters.length)) lane = 'first'
    else lane = 'ordinary'
    const next = this.line(lane).shift()
    this.held(lane)
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
