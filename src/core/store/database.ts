import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { LocalChangeFeed, PostgresChangeFeed, type ChangeFeed } from './changes.ts'
import { secureDataDir } from './data-dir.ts'
import { withLease } from './leases.ts'
import { migrationProvider } from './migrations.ts'
import { KeyedMutex, Mutex } from './mutex.ts'
import { PGliteDialect } from './pglite-dialect.ts'
import { initialisePGliteDataDir } from './pglite-init.ts'
import type { Schema } from './schema.ts'

export type Db = Kysely<Schema>

export interface Store {
  kind: 'pglite' | 'postgres'
  db: Db
  /**
   * Runs `fn` while holding a lock named `key` that every process sharing the database respects.
   * PostgreSQL: a lease row (leases.ts), so no connection is held while `fn` runs or while waiting,
   * and `fn` may use the pool freely; the lease lapses after LEASE_MS, so `fn` must finish within it.
   * PGlite: an in-process lock, which is enough because a PGlite data directory is only ever opened
   * by one process.
   */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>
  /** Tells every process on this store that a cached row changed. */
  changes: ChangeFeed
  close(): Promise<void>
}

export type StoreOptions = { databaseUrl: string } | { dataDir: string } | { memory: true }

export async function openStore(options: StoreOptions): Promise<Store> {
  const store = 'databaseUrl' in options ? await openPostgres(options.databaseUrl) : await openPGlite(options)
  await migrate(store.db)
  // Opening and migrating write files of their own (WAL, tables), as loose as those initdb wrote.
  if ('dataDir' in options) secureDataDir(options.dataDir)
  return store
}

/**
 * PostgreSQL's default 128 MB buffer cache is sized for a shared server. The embedded store holds one
 * person's integrations, agents and runs: 32 MB keeps the run queue's working set cached (the worker
 * caught up with a burst two and a half times faster than with 16 MB, docs/benchmarks.md) for about
 * 10 MiB more at idle, and the default service stays about 90 MiB smaller than with the default.
 */
const PGLITE_CONF = 'shared_buffers = 32MB'

async function openPGlite(options: { dataDir: string } | { memory: true }): Promise<Store> {
  if ('dataDir' in options) {
    await initialisePGliteDataDir(options.dataDir)
    secureDataDir(options.dataDir)
  }
  const pglite = 'dataDir' in options ? new PGlite(options.dataDir, { postgresqlconf: PGLITE_CONF }) : new PGlite({ postgresqlconf: PGLITE_CONF })
  await pglite.waitReady
  const mutex = new Mutex()
  const locks = new KeyedMutex()
  const db = new Kysely<Schema>({ dialect: new PGliteDialect(pglite, mutex) })
  const vacuum = setInterval(() => void vacuumQueues(pglite, mutex), PGLITE_VACUUM_EVERY_MS)
  vacuum.unref()
  return {
    kind: 'pglite',
    db,
    withLock: (key, fn) => locks.run(key, fn),
    changes: new LocalChangeFeed(),
    async close() {
      clearInterval(vacuum)
      await db.destroy()
      await pglite.close()
    },
  }
}

/**
 * PGlite has no autovacuum (one process, no background workers). The runs table is a queue, each
 * run written three times, so it and its partial indexes would fill with dead rows for ever, and the
 * worker's sweep and claims slow down with them: on the trigger bench, the third platform's p99
 * latency reached 111 ms. So the embedded store does what autovacuum would: each minute it reads the
 * statistics PGlite keeps and vacuums a table whose dead rows pass autovacuum's default threshold
 * (50 plus a fifth of its live rows), between statements (VACUUM cannot run inside a transaction).
 * An idle store, or one with few changes, is left alone.
 */
const PGLITE_VACUUM_EVERY_MS = 60_000
const VACUUM_THRESHOLD = 50
const VACUUM_SCALE_FACTOR = 0.2
const VACUUM_STATISTICS_TARGET = 10

export async function vacuumQueues(pglite: PGlite, mutex: Mutex): Promise<void> {
  await mutex.lock()
  try {
    if (pglite.closed) return
    const { rows } = await pglite.query<{ relname: string }>(
      `select relname from pg_stat_user_tables
        where relname in ('runs', 'run_steps', 'events') and n_dead_tup > $1::float8 + $2::float8 * n_live_tup`,
      [VACUUM_THRESHOLD, VACUUM_SCALE_FACTOR])
    if (!rows.length) return
    // The statistics sample is kept small: the queue's queries need only rough counts, and at the
    // default sample (30,000 rows) ANALYZE held the one thread for about a second on the trigger
    // bench, during which no delivery was answered (the p99 latency reached 1.15 s). At 10 it
    // samples 3,000 rows, in tens of milliseconds.
    await pglite.exec(`SET default_statistics_target = ${VACUUM_STATISTICS_TARGET}`)
    try {
      await pglite.exec(`VACUUM (ANALYZE) ${rows.map((r) => r.relname).join(', ')}`)
    } finally {
      await pglite.exec('RESET default_statistics_target')
    }
  } catch (err) {
    console.error('embedded store: vacuum failed:', err instanceof Error ? err.message : err)
  } finally {
    mutex.unlock()
  }
}

/**
 * How long a query waits for a free pooled connection before failing. Nothing holds a connection
 * across an outbound call, so a longer wait means the database itself is in trouble: fail loudly
 * rather than hang (docs/scaling.md).
 */
export const POOL_ACQUIRE_TIMEOUT_MS = 10_000

async function openPostgres(databaseUrl: string): Promise<Store> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, connectionTimeoutMillis: POOL_ACQUIRE_TIMEOUT_MS })
  // An idle pooled connection that the server ends (a restart, a failover, an administrator) is
  // dropped by the pool and replaced on the next query; unheard, its 'error' would end the process.
  pool.on('error', () => {})
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) })
  const changes = await PostgresChangeFeed.open(databaseUrl, pool)
  const locks = new KeyedMutex()
  return {
    kind: 'postgres',
    db,
    // Holders in this process queue here first, so only one of them polls the lease.
    withLock: (key, fn) => locks.run(key, () => withLease(db, key, fn)),
    changes,
    async close() {
      await changes.close()
      await db.destroy()
    },
  }
}

async function migrate(db: Db): Promise<void> {
  // Two processes starting at once on one PostgreSQL must not both run the DDL.
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(7400001)`.execute(conn)
    try {
      const { error, results } = await new Migrator({ db: conn, provider: migrationProvider }).migrateToLatest()
      const failed = results?.find((r) => r.status === 'Error')
      if (error || failed) throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`)
    } finally {
      await sql`select pg_advisory_unlock(7400001)`.execute(conn)
    }
  })
}
