import { PGlite } from '@electric-sql/pglite'
import { afterEach, describe, expect, it } from 'vitest'
import { maintainPGlite } from './pglite-vacuum.ts'
import { Mutex } from './mutex.ts'

// The embedded store does autovacuum's work in small steps (pglite-vacuum.ts): VACUUM once a table
// has 5,000 dead rows, whatever its size, and ANALYZE once half its rows changed. Statistics
// reach pg_stat_user_tables about a second after a transaction ends, hence the short waits.
const settle = async (pglite: PGlite) => {
  await new Promise((resolve) => setTimeout(resolve, 1_200))
  await pglite.exec('select 1')
}

describe('the embedded store vacuums a table once it has a few thousand dead rows, and analyzes it once half changed', () => {
  let pglite: PGlite
  afterEach(async () => {
    if (pglite && !pglite.closed) await pglite.close()
  })

  const stats = async (table: string) => {
    const { rows } = await pglite.query<{ vacuum_count: string; analyze_count: string; n_dead_tup: string }>(
      'select vacuum_count, analyze_count, n_dead_tup from pg_stat_user_tables where relname = $1',
      [table],
    )
    return {
      vacuums: Number(rows[0].vacuum_count),
      analyzes: Number(rows[0].analyze_count),
      dead: Number(rows[0].n_dead_tup),
    }
  }

  it('vacuums a large table after 5,000 dead rows (not a fifth of it), and leaves one with fewer alone', async () => {
    pglite = new PGlite()
    await pglite.exec(`
      create table runs (id int primary key, status text);
      create table events (id int primary key);
      insert into runs select g, 'queued' from generate_series(1, 60000) g;
      insert into events select g from generate_series(1, 60000) g;`)
    await maintainPGlite(pglite, new Mutex())
    // 6,000 dead rows in 60,000 is a tenth: under autovacuum's threshold (a fifth), over the embedded store's.
    await pglite.exec(
      `update runs set status = 'succeeded' where id <= 6000; delete from events where id <= 4000`,
    )
    await settle(pglite)
    expect((await stats('runs')).dead).toBe(6000)

    await maintainPGlite(pglite, new Mutex())
    await settle(pglite)

    expect(await stats('runs')).toMatchObject({ vacuums: 1, dead: 0 })
    expect(await stats('events')).toMatchObject({ vacuums: 0, dead: 4000 })
  })

  it('analyzes a table once half its rows changed, without vacuuming it for a few hundred dead rows', async () => {
    pglite = new PGlite()
    await pglite.exec(`
      create table events (id int primary key, type text);
      insert into events select g, 'a' from generate_series(1, 1000) g;`)
    await settle(pglite)
    await maintainPGlite(pglite, new Mutex())
    await settle(pglite)
    expect(await stats('events')).toMatchObject({ vacuums: 0, analyzes: 1 })

    // 400 changed rows of 1,000: under 50 plus half.
    await pglite.exec(`update events set type = 'b' where id <= 400`)
    await settle(pglite)
    await maintainPGlite(pglite, new Mutex())
    await settle(pglite)
    expect((await stats('events')).analyzes).toBe(1)

    await pglite.exec(`update events set type = 'b' where id > 800`)
    await settle(pglite)
    await maintainPGlite(pglite, new Mutex())
    await settle(pglite)
    expect(await stats('events')).toMatchObject({ vacuums: 0, analyzes: 2 })
  })

  it('holds the thread for one statement on one table at a time, so a waiting statement waits for one step, not the turn', async () => {
    pglite = new PGlite()
    await pglite.exec(`
      create table runs (id int primary key, status text);
      create table events (id int primary key, type text);
      insert into runs select g, 'queued' from generate_series(1, 12000) g;
      insert into events select g, 'a' from generate_series(1, 12000) g;`)
    await settle(pglite)
    await pglite.exec(`update runs set status = 'succeeded'; update events set type = 'b'`)
    await settle(pglite)

    // Each hold of the mutex, with the statements run in it; an intake statement is queued as the
    // first VACUUM starts, as a delivery arriving mid-turn would be.
    const mutex = new Mutex()
    const holds: string[][] = []
    let held: string[] | undefined
    const lock = mutex.lock.bind(mutex)
    const unlock = mutex.unlock.bind(mutex)
    mutex.lock = async (...args) => {
      await lock(...args)
      held = []
      holds.push(held)
    }
    mutex.unlock = () => {
      held = undefined
      unlock()
    }
    let intakeQueued = false
    const exec = pglite.exec.bind(pglite)
    pglite.exec = async (statement, ...rest) => {
      held?.push(statement)
      if (statement.startsWith('VACUUM') && !intakeQueued) {
        intakeQueued = true
        void mutex.lock().then(() => {
          held!.push('intake')
          mutex.unlock()
        })
      }
      return exec(statement, ...rest)
    }

    await maintainPGlite(pglite, mutex)
    await settle(pglite)

    const heavy = holds.map((statements) => statements.filter((x) => /^(VACUUM|ANALYZE|intake)/.test(x)))
    for (const statements of heavy) {
      expect(statements.length).toBeLessThanOrEqual(1)
      expect(statements[0] ?? '').not.toContain(',')
    }
    // The intake went in right after the first VACUUM, before the rest of the turn.
    const order = heavy.flat()
    expect(order[1]).toBe('intake')
    expect([...order].sort()).toEqual([
      'ANALYZE public.events',
      'ANALYZE public.runs',
      'VACUUM public.events',
      'VACUUM public.runs',
      'intake',
    ])
    expect(await stats('runs')).toMatchObject({ vacuums: 1, analyzes: 1, dead: 0 })
    expect(await stats('events')).toMatchObject({ vacuums: 1, analyzes: 1, dead: 0 })
  })

  it('does nothing once the store is closed', async () => {
    pglite = new PGlite()
    await pglite.close()
    await expect(maintainPGlite(pglite, new Mutex())).resolves.toBeUndefined()
  })
})
