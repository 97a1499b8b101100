import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { openStore } from './database.ts'
import { Mutex } from './mutex.ts'
import { asOwner } from './statement-owner.ts'

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
      ...['f1', 'f2', 'f3'].map((name) => mutex.lock('first').then(() => (order.push(name), mutex.unlock()))),
    ]
    mutex.unlock()
    await Promise.all(waiting)
    expect(order).toEqual(['f1', 'n1', 'f2', 'n2', 'f3', 'n3'])
  })
  it('a waiter in the next lane goes right after the holder, ahead of both lines, but never twice in a row while others wait', async () => {
    const mutex = new Mutex(true)
    const order: string[] = []
    await mutex.lock()
    const take = (name: string, lane: 'ordinary' | 'first' | 'next') =>
      mutex.lock(lane).then(() => (order.push(name), mutex.unlock()))
    const waiting = [
      ...['n1', 'n2', 'n3'].map((name) => take(name, 'ordinary')),
      ...['f1', 'f2', 'f3'].map((name) => take(name, 'first')),
      ...['c1', 'c2'].map((name) => take(name, 'next')),
    ]
    mutex.unlock()
    await Promise.all(waiting)
    expect(order).toEqual(['c1', 'f1', 'c2', 'n1', 'f2', 'n2', 'f3', 'n3'])
  })

  // Issue 22 §9: another owner's run, written, waited for the worker's claim behind the busy owner's
  // next shared write and the run statement it alternates with; the claim now goes right after the
  // statement running when it asks.
  it("the worker's claims run right after the statement in progress, ahead of the intake's and the runs' queued statements", async () => {
    const store = await openStore({ memory: true })
    try {
      const order: string[] = []
      const run = (name: string, db: typeof store.db) =>
        sql`select 1`.execute(db).then(() => order.push(name))
      const all = [run('holder', store.db)]
      for (let i = 0; i < 10; i++) all.push(run(`intake${i}`, store.urgent), run(`runs${i}`, store.db))
      all.push(run('claim', store.soonest))
      await Promise.all(all)
      expect(order.indexOf('claim')).toBe(1)
    } finally {
      await store.close()
    }
  }, 120_000)
  it('waiters with a key wait in a line per key within their lane, and the lines take turns', async () => {
    const mutex = new Mutex(true)
    const order: string[] = []
    await mutex.lock()
    const waiting = [
      ...['a1', 'a2', 'a3'].map((name) =>
        mutex.lock('first', 'a').then(() => (order.push(name), mutex.unlock())),
      ),
      ...['b1', 'b2'].map((name) => mutex.lock('first', 'b').then(() => (order.push(name), mutex.unlock()))),
    ]
    mutex.unlock()
    await Promise.all(waiting)
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2', 'a3'])
  })

  // Issue 22 §9: every webhook in use has its route read again each second, seven statements in the
  // intake's lane; another owner's shared write waited behind all of those queued before it.
  it("a delivery's write waits for one of the routes' reads made ahead of need at most, however many are queued", async () => {
    const store = await openStore({ memory: true })
    try {
      const order: string[] = []
      const run = (name: string, db: typeof store.db) =>
        sql`select 1`.execute(db).then(() => order.push(name))
      const all = [run('holder', store.db)]
      for (let i = 0; i < 14; i++) all.push(run(`reread${i}`, store.ahead))
      all.push(run('write', store.urgent))
      await Promise.all(all)
      expect(order.indexOf('write')).toBeLessThanOrEqual(2)
    } finally {
      await store.close()
    }
  }, 120_000)

  // Issue 22 §2: the ordinary lane was one line in arrival order, and a run of B's was seen waiting
  // 724 ms behind A's statements queued before it. Each owner's statements now wait in a line of their
  // own, and the lines take turns; statements of no owner keep their order in theirs.
  it("an owner's statement waits for one of another owner's queued statements at most, and each owner's keep their order", async () => {
    const store = await openStore({ memory: true })
    try {
      const order: string[] = []
      const run = (name: string) => sql`select 1`.execute(store.db).then(() => order.push(name))
      const all = [run('holder')]
      for (let i = 0; i < 20; i++) all.push(asOwner('usr_a', () => run(`a${i}`)))
      for (let i = 0; i < 3; i++) all.push(run(`none${i}`))
      // A transaction holds the connection for its statements: B's waits in B's line all the same.
      all.push(
        asOwner('usr_b', () =>
          store.db.transaction().execute(async (tx) => {
            await sql`select 1`.execute(tx)
            await sql`select 2`.execute(tx)
          }),
        ).then(() => order.push('b')),
      )
      await Promise.all(all)
      expect(order.indexOf('b')).toBeLessThanOrEqual(3)
      const a = order.filter((name) => name.startsWith('a'))
      expect(a).toEqual(Array.from({ length: 20 }, (_, i) => `a${i}`))
      expect(order.filter((name) => name.startsWith('none'))).toEqual(['none0', 'none1', 'none2'])
      // The unowned line took its turns too, not after all of A's.
      expect(order.indexOf('none2')).toBeLessThan(order.indexOf('a5'))
    } finally {
      await store.close()
    }
  }, 120_000)
})
