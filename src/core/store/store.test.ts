import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore, type Store } from './database.ts'
import { startQueue } from './queue.ts'

// The store's tests always run on PGlite, and again on PostgreSQL when TEST_DATABASE_URL is set.
const stores: Array<[string, () => Promise<Store>]> = [['pglite', () => openStore({ memory: true })]]
if (process.env.TEST_DATABASE_URL) stores.push(['postgres', () => openStore({ databaseUrl: process.env.TEST_DATABASE_URL! })])

describe.each(stores)('store on %s', (_name, open) => {
  let store: Store
  beforeAll(async () => { store = await open() })
  afterAll(async () => { await store?.close() })

  it('migrates and round-trips a row with jsonb and timestamps', async () => {
    const id = `u-${Math.random().toString(36).slice(2)}`
    await store.db.insertInto('users').values({ id, email: `${id}@example.test`, name: 'N', plan: 'free' }).execute()
    const row = await store.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(row.plan).toBe('free')
    expect(row.created_at).toBeInstanceOf(Date)
  })

  it('rolls back a failed transaction without leaking its writes to other callers', async () => {
    const id = `u-${Math.random().toString(36).slice(2)}`
    await expect(store.db.transaction().execute(async (trx) => {
      await trx.insertInto('users').values({ id, email: `${id}@example.test`, name: 'N', plan: 'free' }).execute()
      throw new Error('boom')
    })).rejects.toThrow('boom')
    const row = await store.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()
    expect(row).toBeUndefined()
  })

  it('serialises withLock holders on the same key', async () => {
    let inside = 0
    let maxInside = 0
    await Promise.all(Array.from({ length: 10 }, () => store.withLock('k', async () => {
      inside++
      maxInside = Math.max(maxInside, inside)
      await new Promise((r) => setTimeout(r, 5))
      inside--
    })))
    expect(maxInside).toBe(1)
  })

  it('runs pg-boss: a job sent is fetched and completed', async () => {
    const boss = await startQueue(store)
    try {
      const queue = `q-${Math.random().toString(36).slice(2)}`
      await boss.createQueue(queue)
      await boss.send(queue, { hello: 'world' })
      const [job] = await boss.fetch<{ hello: string }>(queue)
      expect(job.data.hello).toBe('world')
      await boss.complete(queue, job.id)
    } finally {
      await boss.stop({ graceful: false, wait: true })
    }
  })
})
