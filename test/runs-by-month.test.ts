import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { idPrefixAt, newId } from '../src/core/ids.ts'
import { migrationsFor, type StoreKind } from '../src/core/store/migrations.ts'
import { Mutex } from '../src/core/store/mutex.ts'
import { PGliteDialect } from '../src/core/store/pglite-dialect.ts'
import { maintainPGlite } from '../src/core/store/pglite-vacuum.ts'
import { ensureRunPartitions } from '../src/core/store/run-partitions.ts'
import { scratchDatabase } from './helpers/scratch-database.ts'

// On the embedded store, runs and their timelines are partitioned by month (migration 0023,
// src/core/store/runs-by-month.ts), so its maintenance works on the newest month however old the
// installation is (issue 22, section 3). On PostgreSQL, checked when TEST_DATABASE_URL is set, they
// stay one table each, as migrationsFor in src/core/store/migrations.ts says why.
interface Opened {
  db: Kysely<any>
  close(): Promise<void>
}
const openPGlite = async (): Promise<Opened> => {
  const pglite = new PGlite()
  const db = new Kysely<any>({ dialect: new PGliteDialect(pglite, new Mutex()) })
  return { db, close: async () => (await db.destroy(), await pglite.close()) }
}

const migrateTo = async (db: Kysely<any>, name?: string, store: StoreKind = 'pglite') => {
  const migrator = new Migrator({ db, provider: migrationsFor(store) })
  const { error } = name ? await migrator.migrateTo(name) : await migrator.migrateToLatest()
  if (error) throw error
}

/** Each partition of `table` with its bounds, in the order of their bounds. */
const partitions = async (db: Kysely<any>, table: string) => {
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${table}::regclass order by 1`.execute(db)
  return rows
}
/** The partition each row of `table` is in, by its key. */
const whereIs = async (db: Kysely<any>, table: 'runs' | 'run_steps', key: string) => {
  const column = table === 'runs' ? sql`id` : sql`run_id`
  const { rows } = await sql<{ partition: string }>`
    select tableoid::regclass::text as partition from ${sql.table(table)} where ${column} = ${key}`.execute(
    db,
  )
  return rows.map((r) => r.partition)
}
const monthOf = (at: Date) => `${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`
const monthsAfter = (at: Date, n: number) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + n, 15))

const seedOwner = async (db: Kysely<any>) => {
  const userId = newId('usr')
  const agentId = newId('agt')
  await sql`insert into users (id, email, name, plan) values (${userId}, ${`${userId}@example.test`}, 'Ada', 'pro')`.execute(
    db,
  )
  await sql`insert into agents (id, user_id, name, current_version) values (${agentId}, ${userId}, 'a', 1)`.execute(
    db,
  )
  return { userId, agentId }
}
const insertRun = (db: Kysely<any>, id: string, owner: { userId: string; agentId: string }, status: string) =>
  sql`insert into runs (id, user_id, agent_id, agent_version, started_by, inputs, status)
      values (${id}, ${owner.userId}, ${owner.agentId}, 1, 'api', '{}', ${status})`.execute(db)
const queuedCount = async (db: Kysely<any>, userId: string) => {
  const { rows } = await sql<{
    waiting: string
  }>`select waiting from queued_run_counts where user_id = ${userId}`.execute(db)
  return Number(rows[0]?.waiting ?? 0)
}

describe('runs partitioned by month, on the embedded store', () => {
  let opened: Opened | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })

  it('an installation keeps its runs, timelines and approvals through the move, with their cascades, counts and functions', async () => {
    opened = await openPGlite()
    const { db } = opened
    await migrateTo(db, '0022_run_write_functions')
    const owner = await seedOwner(db)
    const [waiting, done] = [newId('run'), newId('run')]
    await insertRun(db, waiting, owner, 'queued')
    await insertRun(db, done, owner, 'succeeded')
    await sql`insert into run_steps (run_id, seq, key, kind, status) values (${done}, 0, 'first', 'step', 'succeeded')`.execute(
      db,
    )
    await sql`insert into approvals (id, run_id, user_id, model_seq, status, calls, expires_at)
      values ('apr_1', ${done}, ${owner.userId}, 1, 'pending', '[]', now() + interval '1 day')`.execute(db)

    await migrateTo(db)
    const { made, dropped } = await ensureRunPartitions(db)

    expect(dropped).toEqual([])
    expect(made).toEqual([0, 1, 2].map((n) => `runs_${monthOf(monthsAfter(new Date(), n))}`))
    expect(await whereIs(db, 'runs', done)).toEqual(['runs_before'])
    expect(await whereIs(db, 'run_steps', done)).toEqual(['run_steps_before'])
    expect(await queuedCount(db, owner.userId)).toBe(1)
    // A run made now goes to this month's partition, its timeline beside it, and the count follows.
    const fresh = newId('run')
    await insertRun(db, fresh, owner, 'queued')
    await sql`insert into run_steps (run_id, seq, key, kind, status) values (${fresh}, 0, 'first', 'step', 'running')`.execute(
      db,
    )
    expect(await whereIs(db, 'runs', fresh)).toEqual([`runs_${monthOf(new Date())}`])
    expect(await whereIs(db, 'run_steps', fresh)).toEqual([`run_steps_${monthOf(new Date())}`])
    expect(await queuedCount(db, owner.userId)).toBe(2)
    // The functions made again over the new tables: the claim takes both waiting runs, old and new.
    const { rows: claimed } = await sql<{ id: string }>`
      select id from claim_runs('test', 30000, 10, 10, '{}'::jsonb, '{}'::jsonb)`.execute(db)
    expect(claimed.map((r) => r.id).sort()).toEqual([waiting, fresh].sort())
    expect(await queuedCount(db, owner.userId)).toBe(0)
    const { rows: begun } = await sql<{ seq: number }>`
      select seq from begin_run_steps(${fresh}, ${`test#1`}, false, false, null,
        ${JSON.stringify([{ run_id: fresh, seq: 1, key: 'second', kind: 'step', status: 'running', attempts: [] }])}::jsonb, '[]'::jsonb)`.execute(
      db,
    )
    expect(begun.map((r) => r.seq)).toEqual([1])
    // Deleting a run still takes its timeline and approvals with it, across partitions.
    await sql`delete from runs where id = ${done}`.execute(db)
    const left = await sql<{ steps: number; approvals: number }>`
      select (select count(*)::int from run_steps where run_id = ${done}) as steps,
             (select count(*)::int from approvals where run_id = ${done}) as approvals`.execute(db)
    expect(left.rows[0]).toEqual({ steps: 0, approvals: 0 })
    // And removing the user takes every run, in every partition.
    await sql`delete from users where id = ${owner.userId}`.execute(db)
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from runs`.execute(db)
    expect(rows[0]?.n).toBe(0)
  })

  it('months are made ahead once each and contiguous; one that ended with no run left is dropped, one with a run kept', async () => {
    opened = await openPGlite()
    const { db } = opened
    await migrateTo(db)
    const now = new Date()
    const thisMonth = `runs_${monthOf(now)}`
    // A new installation has kept nothing from before.
    expect((await ensureRunPartitions(db, now)).dropped).toEqual(['runs_before'])
    expect(await ensureRunPartitions(db, now)).toEqual({ made: [], dropped: [] })
    const owner = await seedOwner(db)
    const run = newId('run')
    await insertRun(db, run, owner, 'succeeded')

    expect(await ensureRunPartitions(db, monthsAfter(now, 1))).toEqual({
      made: [`runs_${monthOf(monthsAfter(now, 3))}`],
      dropped: [],
    })
    await sql`delete from runs where id = ${run}`.execute(db)
    expect(await ensureRunPartitions(db, monthsAfter(now, 1))).toEqual({ made: [], dropped: [thisMonth] })
    for (const table of ['runs', 'run_steps']) {
      const ranges = (await partitions(db, table))
        .filter((p) => p.bound !== 'DEFAULT')
        .map((p) => /FROM \('(.*)'\) TO \('(.*)'\)/.exec(p.bound)!.slice(1, 3))
        .sort((a, b) => (a[0]! < b[0]! ? -1 : 1))
      // Each month ends where ids made at the start of the next begin, and the next starts there.
      expect(ranges.map((r) => r[1])).toEqual(
        [2, 3, 4].map((n) =>
          idPrefixAt('run', new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + n, 1))),
        ),
      )
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]![0]).toBe(ranges[i - 1]![1])
    }
  })

  it('a run whose id no month covers is kept in the default partition, and the months after it are still made', async () => {
    opened = await openPGlite()
    const { db } = opened
    await migrateTo(db)
    await ensureRunPartitions(db)
    const owner = await seedOwner(db)
    await insertRun(db, 'run_zzzzzzzzz', owner, 'succeeded')
    await insertRun(db, `${idPrefixAt('run', monthsAfter(new Date(), 5))}x`, owner, 'succeeded')

    expect(await whereIs(db, 'runs', 'run_zzzzzzzzz')).toEqual(['runs_default'])
    expect((await ensureRunPartitions(db, monthsAfter(new Date(), 2))).made).toHaveLength(2)
    expect(await whereIs(db, 'runs', 'run_zzzzzzzzz')).toEqual(['runs_default'])
  })
})

describe('the embedded store maintains the month that changes, not the runs kept before it', () => {
  let pglite: PGlite | undefined
  afterEach(async () => pglite?.close())

  it('vacuums this month after a burst of runs, and leaves the partition of 20,000 older ones unread', async () => {
    pglite = new PGlite()
    const db = new Kysely<any>({ dialect: new PGliteDialect(pglite, new Mutex()) })
    await migrateTo(db)
    const owner = await seedOwner(db)
    await sql`insert into runs (id, user_id, agent_id, agent_version, started_by, inputs, status)
      select 'run_0' || lpad(g::text, 8, '0'), ${owner.userId}, ${owner.agentId}, 1, 'api', '{}', 'succeeded'
      from generate_series(1, 20000) g`.execute(db)
    await ensureRunPartitions(db)
    // A burst as the worker moves it: queued, running, ended, each a new version of the row.
    await sql`insert into runs (id, user_id, agent_id, agent_version, started_by, inputs, status)
      select ${idPrefixAt('run', new Date())} || lpad(g::text, 16, '0'), ${owner.userId}, ${owner.agentId}, 1, 'api', '{}', 'queued'
      from generate_series(1, 6000) g`.execute(db)
    await sql`update runs set status = 'running' where status = 'queued'`.execute(db)
    await sql`update runs set status = 'succeeded' where status = 'running'`.execute(db)
    const vacuums = async () => {
      // PGlite counts a transaction's changes about a second after it ends.
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      const { rows } = await sql<{ relname: string; vacuum_count: string }>`
        select relname, vacuum_count from pg_stat_user_tables where relname like 'runs%'`.execute(db)
      return Object.fromEntries(rows.map((r) => [r.relname, Number(r.vacuum_count)]))
    }
    const before = await vacuums()

    await maintainPGlite(pglite, new Mutex())
    const after = await vacuums()

    expect(after[`runs_${monthOf(new Date())}`]).toBe((before[`runs_${monthOf(new Date())}`] ?? 0) + 1)
    expect(after.runs_before).toBe(before.runs_before ?? 0)
    await db.destroy()
  })
})

describe.runIf(process.env.TEST_DATABASE_URL)(
  'on PostgreSQL, runs and their timelines stay one table each',
  () => {
    it('after every migration, with the one-run-per-event and token indexes still unique', async () => {
      const scratch = await scratchDatabase(process.env.TEST_DATABASE_URL!)
      const db = new Kysely<any>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: scratch.url }) }),
      })
      try {
        await migrateTo(db, undefined, 'postgres')
        const { rows: tables } = await sql<{ relname: string; relkind: string }>`
        select relname, relkind from pg_class where relname in ('runs', 'run_steps') order by 1`.execute(db)
        expect(tables).toEqual([
          { relname: 'run_steps', relkind: 'r' },
          { relname: 'runs', relkind: 'r' },
        ])
        const { rows: unique } = await sql<{ name: string }>`
        select i.relname as name from pg_index x join pg_class i on i.oid = x.indexrelid
        where x.indrelid = 'runs'::regclass and x.indisunique order by 1`.execute(db)
        expect(unique.map((r) => r.name)).toEqual(['runs_by_token', 'runs_once_per_event', 'runs_pkey'])
        // The run functions plan as PostgreSQL chooses: the kept plan is the partitions' need alone.
        const { rows: settings } = await sql<{ proconfig: string[] | null }>`
        select proconfig from pg_proc where proname in ('claim_runs', 'begin_run_steps', 'end_runs', 'accept_events')`.execute(
          db,
        )
        expect(settings.map((r) => r.proconfig)).toEqual([null, null, null, null])
      } finally {
        await db.destroy()
        await scratch.drop()
      }
    })
  },
)
