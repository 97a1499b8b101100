import { PGlite } from '@electric-sql/pglite'
import { afterEach, describe, expect, it } from 'vitest'
import { vacuumQueues } from './database.ts'
import { Mutex } from './mutex.ts'

// The embedded store vacuums its queue tables as autovacuum would (database.ts): a table whose dead
// rows pass 50 plus a fifth of its live rows, and no other. Statistics reach pg_stat_user_tables
// about a second after a transaction ends, hence the short waits.
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_200))

describe('the embedded store vacuums a queue table only once its dead rows call for it', () => {
  let pglite: PGlite
  afterEach(async () => {
    if (pglite && !pglite.closed) await pglite.close()
  })

  const stats = async (table: string) => (await pglite.query<{ vacuum_count: string; n_dead_tup: string }>(
    'select vacuum_count, n_dead_tup from pg_stat_user_tables where relname = $1', [table])).rows[0]

  it('vacuums runs after a burst of finished runs, and leaves a table with few changes alone', async () => {
    pglite = new PGlite()
    await pglite.exec(`
      create table runs (id int primary key, status text);
      create table events (id int primary key);
      insert into runs select g, 'queued' from generate_series(1, 2000) g;
      insert into events select g from generate_series(1, 2000) g;`)
    await pglite.exec(`update runs set status = 'succeeded'; delete from events where id <= 10`)
    await settle()
    await pglite.exec('select 1')
    expect(Number((await stats('runs')).n_dead_tup)).toBeGreaterThan(50 + 0.2 * 2000)

    await vacuumQueues(pglite, new Mutex())
    await settle()
    await pglite.exec('select 1')

    expect(Number((await stats('runs')).vacuum_count)).toBe(1)
    expect(Number((await stats('runs')).n_dead_tup)).toBe(0)
    expect(Number((await stats('events')).vacuum_count)).toBe(0)
  })

  it('does nothing once the store is closed', async () => {
    pglite = new PGlite()
    await pglite.close()
    await expect(vacuumQueues(pglite, new Mutex())).resolves.toBeUndefined()
  })
})
