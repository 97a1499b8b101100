import { asNoOwner } from './statement-owner.ts'

type Pending<T, R> = { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }

/** How long one shared write should take at most; its size is fitted to the time items took lately. */
const DEFAULT_MAX_WRITE_MS = 25
/** Weight of the latest write in the running estimate of one item's cost. */
const COST_WEIGHT = 0.2
/**
 * The fewest items a write may be held to by its time bound, and the fewest a write must hold to
 * count in the estimate: a write's fixed cost (its commit) would make a smaller one look dear per
 * item, and a smaller bound give up the batching the intake's speed rests on.
 */
const MIN_TIMED_BATCH = 16

/**
 * Group commit: requests that arrive while a write is in progress are written together in the next
 * one, each answered only when the write that holds it has committed. Under load this turns many
 * small transactions (each paying a commit) into a few larger ones; alone, a request is written at
 * once. When a shared write fails, its items are written again one by one (alone), so only the item
 * that fails on its own gets a failure.
 *
 * Fair between owners (docs/scaling.md, "One user's burst"): each owner's requests wait in their own
 * line, and a write takes one from each line in turn, so another owner's request is in the next
 * write however many of one owner's are waiting. A write is bounded in count (`maxBatch`) and in
 * time (`maxWriteMs`, from the cost of recent items), since a request that arrives during a write
 * waits for it to end.
 */
export class GroupCommit<T, R> {
  /** Waiting requests by owner; the owner served longest ago first (Map order). */
  private readonly lines = new Map<string, Array<Pending<T, R>>>()
  private writing = false
  /** Estimated milliseconds one item adds to a write (running average), unknown until the first. */
  private msPerItem = 0

  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly maxBatch = 256,
    private readonly maxWriteMs = DEFAULT_MAX_WRITE_MS,
  ) {}

  /** Writes `item` with the next write that has room for it; `owner` says whose line it waits in. */
  submit(item: T, owner = ''): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const line = this.lines.get(owner)
      if (line) line.push({ item, resolve, reject })
      else this.lines.set(owner, [{ item, resolve, reject }])
      // A write shared by many owners is no one's (statement-owner.ts), whoever's request began it.
      if (!this.writing) void asNoOwner(() => this.drain())
    })
  }

  /** The most items the next write takes: all that fit in maxWriteMs at the recent cost, within MIN_TIMED_BATCH..maxBatch. */
  private batchLimit(): number {
    if (this.msPerItem <= 0) return this.maxBatch
    const fits = Math.floor(this.maxWriteMs / this.msPerItem)
    return Math.min(this.maxBatch, Math.max(MIN_TIMED_BATCH, fits))
  }

  private learn(msPerItem: number): void {
    this.msPerItem = this.msPerItem ? this.msPerItem * (1 - COST_WEIGHT) + msPerItem * COST_WEIGHT : msPerItem
  }

  /** The next write's items: one from each owner's line in turn; an owner left waiting goes to the back. */
  private take(limit: number): Array<Pending<T, R>> {
    const batch: Array<Pending<T, R>> = []
    while (batch.length < limit && this.lines.size) {
      for (const owner of [...this.lines.keys()]) {
        if (batch.length >= limit) break
        const line = this.lines.get(owner)!
        batch.push(line.shift()!)
        this.lines.delete(owner)
        if (line.length) this.lines.set(owner, line)
      }
    }
    return batch
  }

  private async drain(): Promise<void> {
    this.writing = true
    // One turn of the event loop lets requests already read from their sockets join this write.
    await new Promise((resolve) => setImmediate(resolve))
    while (this.lines.size) {
      const batch = this.take(this.batchLimit())
      const started = performance.now()
      try {
        const results = await this.write(batch.map((b) => b.item))
        if (batch.length >= MIN_TIMED_BATCH) this.learn((performance.now() - started) / batch.length)
        batch.forEach((b, i) => b.resolve(results[i]))
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err)
        else await this.alone(batch)
      }
    }
    this.writing = false
  }

  /**
   * A failed write wrote nothing (it is one statement, or one transaction), so each of its items is
   * written again on its own: one bad item (a value the database refuses) fails alone instead of
   * taking up to maxBatch good ones with it. A failure every item meets (the database is down) is
   * met by each, as before, at the cost of one attempt per item.
   */
  private async alone(batch: Array<Pending<T, R>>) {
    for (const b of batch) {
      try {
        const [result] = await this.write([b.item])
        b.resolve(result as R)
      } catch (err) {
        b.reject(err)
      }
    }
  }
}
