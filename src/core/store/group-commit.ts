/**
 * Group commit: requests that arrive while a write is in progress are written together in the next
 * one, each answered only when the write that holds it has committed. Under load this turns many
 * small transactions (each paying a commit) into a few larger ones; alone, a request is written at
 * once. When a shared write fails, its items are written again one by one (alone), so only the item
 * that fails on its own gets a failure.
 */
export class GroupCommit<T, R> {
  private pending: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = []
  private writing = false

  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly maxBatch = 256,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject })
      if (!this.writing) void this.drain()
    })
  }

  private async drain(): Promise<void> {
    this.writing = true
    // One turn of the event loop lets requests already read from their sockets join this write.
    await new Promise((resolve) => setImmediate(resolve))
    while (this.pending.length) {
      const batch = this.pending.splice(0, this.maxBatch)
      try {
        const results = await this.write(batch.map((b) => b.item))
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
  private async alone(batch: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }>) {
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
