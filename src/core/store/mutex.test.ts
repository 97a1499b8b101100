import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { openStore } from './database.ts'
import { Mutex } from './mutex.ts'

describe('the embedded store takes turns fairly with the rest of the service', () => {
  // Issue 22 §9 (noisy neighbour): queued statements ran back to back in one turn of the event loop,
  // so no request was read (not even another user's delivery) until every one of them had run.
  it('the event loop turns between queued statements, so requests are read while many wait', async () => {
    const store = await openStore({ memory: true })
    try {
      let done = 0
      const statements = Array.from({ length: 50 }, () =>
        sql`select count(*) from runs`.execute(store.db).then(() => done++),
      )
      const doneAtFirstTurn = await new Promise<number>((resolve) => setImmediate(() => resolve(done)))
      await Promise.all(statements)
      expect(doneAtFirstTurn).toBeLessThan(50)
    } finally {
      await store.close()
    }
  }, 120_000)

  it('a waiter that goes first is served before the ordinary ones, but never twice in a row while one of them waits', async () => {
    const mutex = new Mutex(true)
    const order: string[] = []
    await mutex.lock()
    const waiting = [
      ...['n1', 'n2', 'n3'].map((name) => mutex.lock().then(() => (order.push(name), mutex.unlock()))),
      ...['f1', 'f2', 'f3'].map((name) => mutex.lock(true).then(() => (order.push(name), mutex.unlock()))),
    ]
    mutex.unlock()
    await Promise.all(waiting)
    expect(order).toEqual(['f1', 'n1', 'f2', 'n2', 'f3', 'n3'])
  })
})
