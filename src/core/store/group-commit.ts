/**
 * Group commit: requests that arrive while a write is in progress are written together in the next
 * one, each answered only when the write that holds it has committed. Under load this turns many
 * small transactions (each paying a commit) into a few larger ones; alone, a request is written at
 * once. Every item of a failed write gets that failure.
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
        for (const b of batch) b.reject(err)
      }
    }
    this.writing = false
  }
}
