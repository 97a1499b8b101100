import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore, type Store } from './database.ts'
import { withLease } from './leases.ts'

// The store's tests always run on PGlite, and again on PostgreSQL when TEST_DATABASE_URL is set.
const stores: Array<[string, () => Promise<Store>]> = [['pglite', () => openStore({ memory: true })]]
if (process.env.TEST_DATABASE_URL)
  stores.push(['postgres', () => openStore({ databaseUrl: process.env.TEST_DATABASE_URL! })])

describe.each(stores)('store on %s', (_name, open) => {
  let store: Store
  beforeAll(async () => {
    store = await open()
  })
  afterAll(async () => {
    await store?.close()
  })

  it('migrates and round-trips a row with jsonb and timestamps', async () => {
    const id = `u-${Math.random().toString(36).slice(2)}`
    await store.db
      .insertInto('users')
      .values({ id, email: `${id}@example.test`, name: 'N', plan: 'free' })
      .execute()
    const row = await store.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(row.plan).toBe('free')
    expect(row.created_at).toBeInstanceOf(Date)
  })

  it('rolls back a failed transaction without leaking its writes to other callers', async () => {
    const id = `u-${Math.random().toString(36).slice(2)}`
    await expect(
      store.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('users')
          .values({ id, email: `${id}@example.test`, name: 'N', plan: 'free' })
          .execute()
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    const row = await store.db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()
    expect(row).toBeUndefined()
  })

  it('serialises withLock holders on the same key', async () => {
    let inside = 0
    let maxInside = 0
    await Promise.all(
      Array.from({ length: 10 }, () =>
        store.withLock('k', async () => {
          inside++
          maxInside = Math.max(maxInside, inside)
          await new Promise((r) => setTimeout(r, 5))
          inside--
        }),
      ),
    )
    expect(maxInside).toBe(1)
  })
})

describe.runIf(process.env.TEST_DATABASE_URL)('leases on PostgreSQL', () => {
  let store: Store
  beforeAll(async () => {
    store = await openStore({ databaseUrl: process.env.TEST_DATABASE_URL! })
  })
  afterAll(async () => {
    await store?.close()
  })

  it('a lease whose holder never lets go lapses, and the next holder gets in', async () => {
    const key = `lapse-${Math.random()}`
    let releaseFirst!: () => void
    const firstInside = new Promise<void>((resolve) => {
      void withLease(
        store.db,
        key,
        () => {
          resolve()
          return new Promise<void>((r) => {
            releaseFirst = r
          })
        },
        { leaseMs: 200 },
      )
    })
    await firstInside
    // The first holder is still inside (it waits for us); only the lapse can let the second in.
    const second = await withLease(store.db, key, async () => 'second got in', { leaseMs: 200 })
    expect(second).toBe('second got in')
    releaseFirst()
  })

  it('holds no connection while held: more holders than the pool has connections all get through', async () => {
    const holders = Array.from({ length: 30 }, (_, i) =>
      withLease(store.db, `pool-${i}-${Math.random()}`, async () => {
        // Each holder reads through the same pool while holding its lease.
        await store.db.selectFrom('users').select('id').limit(1).execute()
        return i
      }),
    )
    expect(await Promise.all(holders)).toEqual(Array.from({ length: 30 }, (_, i) => i))
  })
})
