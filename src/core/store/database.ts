import v8 from 'node:v8'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { LocalChangeFeed, PostgresChangeFeed, type ChangeFeed } from './changes.ts'
import { secureDataDir } from './data-dir.ts'
import { withLease } from './leases.ts'
import { migrationsFor, type StoreKind } from './migrations.ts'
import { KeyedMutex, Mutex } from './mutex.ts'
import { PGliteDialect } from './pglite-dialect.ts'
import { maintainPGlite, PGLITE_MAINTENANCE_EVERY_MS } from './pglite-vacuum.ts'
import { initialisePGliteDataDir } from './pglite-init.ts'
import { ensureRunPartitions, RUN_PARTITIONS_EVERY_MS } from './run-partitions.ts'
import type { Db, Schema } from './schema.ts'

// The type lives beside the schema so the store's helpers (leases) need not import this module.
export type { Db }

export interface Store {
  kind: StoreKind
  db: Db
  /**
   * The same database, for the statements the webhook intake makes while a platform waits for its
   * answer. On the embedded store, whose one connection everything takes turns on, they go before
   * the statements already waiting (runs executing, sweeps): another user's burst of runs queued
   * dozens of those, and a delivery waited behind all of them (docs/scaling.md, "One user's burst").
   * They come a few at a time (one shared write at once), so the others still get every other turn.
   * On PostgreSQL it is `db`: the pool serves statements side by side.
   */
  urgent: Db
  /**
   * The same database, for the run worker's claims woken by another owner's run while one owner's
   * burst holds the worker (worker.ts): on the embedded store each goes right after the statement
   * running now, ahead of the intake's (Mutex, lane `next`). A claim is one statement at a time, and
   * in the intake's lane that run, already written, waited for it behind the busy owner's next write
   * and the run statement that write alternates with (docs/scaling.md, "One user's burst"). On
   * PostgreSQL it is `db`.
   */
  soonest: Db
  /**
   * The same database, for the intake's reads made ahead of need (a webhook's route read again
   * before it expires, core/triggers/routes.ts): in the intake's lane on the embedded store, but in a
   * line of their own that takes turns with the intake's other statements (Mutex), so a delivery's
   * write waits for one of them at most. On PostgreSQL it is `db`.
   */
  ahead: Db
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
  await migrate(store.db, store.kind)
  if (store.kind === 'pglite') await keepRunPartitionsAhead(store)
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

/**
 * V8 compiles WebAssembly twice: quickly (Liftoff), then again with its optimising compiler for the
 * functions that run often. For PGlite's PostgreSQL that second copy is about 65 MiB of machine code
 * kept for good, a fifth of the embedded service's memory, while its queries ran no slower on Liftoff
 * alone on this 2-core machine (the optimising compiles compete with the service for the CPU).
 * So the embedded store compiles its module with Liftoff only (docs/benchmarks.md, "Memory"). The flag
 * is read when a module is compiled, so it must be set before the first PGlite opens.
 */
function compileWebAssemblyOnce(): void {
  v8.setFlagsFromString('--liftoff-only')
}

async function openPGlite(options: { dataDir: string } | { memory: true }): Promise<Store> {
  if ('dataDir' in options) {
    await initialisePGliteDataDir(options.dataDir)
    secureDataDir(options.dataDir)
  }
  compileWebAssemblyOnce()
  const pglite =
    'dataDir' in options
      ? new PGlite(options.dataDir, { postgresqlconf: PGLITE_CONF })
      : new PGlite({ postgresqlconf: PGLITE_CONF })
  await pglite.waitReady
  // A turn of the event loop between statements, so sockets are read while many wait (Mutex).
  const mutex = new Mutex(true)
  const locks = new KeyedMutex()
  const db = new Kysely<Schema>({ dialect: new PGliteDialect(pglite, mutex) })
  const urgent = new Kysely<Schema>({ dialect: new PGliteDialect(pglite, mutex, 'first') })
  const soonest = new Kysely<Schema>({ dialect: new PGliteDialect(pglite, mutex, 'next') })
  const ahead = new Kysely<Schema>({ dialect: new PGliteDialect(pglite, mutex, 'first', 'ahead') })
  const maintenance = setInterval(() => void maintainPGlite(pglite, mutex), PGLITE_MAINTENANCE_EVERY_MS)
  maintenance.unref()
  return {
    kind: 'pglite',
    db,
    urgent,
    soonest,
    ahead,
    withLock: (key, fn) => locks.run(key, fn),
    changes: new LocalChangeFeed(),
    async close() {
      clearInterval(maintenance)
      await ahead.destroy()
      await soonest.destroy()
      await urgent.destroy()
      await db.destroy()
      await pglite.close()
    },
  }
}

/**
 * How long a query waits for a free pooled connection before failing. Nothing holds a connection
 * across an outbound call, so a longer wait means the database itself is in trouble: fail loudly
 * rather than hang (docs/scaling.md).
 */
export const POOL_ACQUIRE_TIMEOUT_MS = 10_000

async function openPostgres(databaseUrl: string): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    connectionTimeoutMillis: POOL_ACQUIRE_TIMEOUT_MS,
  })
  // An idle pooled connection that the server ends (a restart, a failover, an administrator) is
  // dropped by the pool and replaced on the next query; unheard, its 'error' would end the process.
  pool.on('error', () => {})
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) })
  const changes = await PostgresChangeFeed.open(databaseUrl, pool)
  const locks = new KeyedMutex()
  return {
    kind: 'postgres',
    db,
    urgent: db,
    soonest: db,
    ahead: db,
    // Holders in this process queue here first, so only one of them polls the lease.
    withLock: (key, fn) => locks.run(key, () => withLease(db, key, fn)),
    changes,
    async close() {
      await changes.close()
      await db.destroy()
    },
  }
}

/**
 * On the embedded store, whose runs are partitioned by month (migrations.ts, migrationsFor), the
 * months' partitions are made ahead while the store is open (run-partitions.ts). A check that
 * fails is logged and made again at the next: meanwhile new runs go to the default partition, kept
 * like any other.
 */
async function keepRunPartitionsAhead(store: Store): Promise<void> {
  const ensure = () =>
    ensureRunPartitions(store.db).catch((err: unknown) => {
      console.error('store: making the next months of runs failed:', err instanceof Error ? err.message : err)
    })
  await ensure()
  const upkeep = setInterval(() => void ensure(), RUN_PARTITIONS_EVERY_MS)
  upkeep.unref()
  const close = store.close.bind(store)
  store.close = async () => {
    clearInterval(upkeep)
    await close()
  }
}

async function migrate(db: Db, kind: StoreKind): Promise<void> {
  // Two processes starting at once on one PostgreSQL must not both run the DDL.
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(7400001)`.execute(conn)
    try {
      const { error, results } = await new Migrator({
        db: conn,
        provider: migrationsFor(kind),
      }).migrateToLatest()
      const failed = results?.find((r) => r.status === 'Error')
      if (error || failed)
        throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`)
    } finally {
      await sql`select pg_advisory_unlock(7400001)`.execute(conn)
    }
  })
}
