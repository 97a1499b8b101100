import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { LocalChangeFeed, PostgresChangeFeed, type ChangeFeed } from './changes.ts'
import { secureDataDir } from './data-dir.ts'
import { migrationProvider } from './migrations.ts'
import { KeyedMutex, Mutex } from './mutex.ts'
import { PGliteDialect } from './pglite-dialect.ts'
import { initialisePGliteDataDir } from './pglite-init.ts'
import type { Schema } from './schema.ts'

export type Db = Kysely<Schema>

/** Raw SQL access in the shape pg-boss expects, on either store. */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>
}

export interface Store {
  kind: 'pglite' | 'postgres'
  db: Db
  sql: SqlExecutor
  /**
   * Runs `fn` while holding a lock named `key` that every process sharing the database respects.
   * PostgreSQL: a session advisory lock on a dedicated connection. PGlite: an in-process lock, which
   * is enough because a PGlite data directory is only ever opened by one process.
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
 * PostgreSQL's default 128 MB buffer cache is sized for a shared server. The embedded store holds
 * one user's integrations and queue, so 16 MB keeps its working set cached and the default service
 * about 100 MiB smaller.
 */
const PGLITE_CONF = 'shared_buffers = 16MB'

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
  return {
    kind: 'pglite',
    db,
    sql: {
      // pg-boss sends multi-statement scripts without parameters; only exec() runs those on PGlite.
      executeSql: (text, values) =>
        mutex.run(async () => {
          if (values && values.length > 0) return { rows: (await pglite.query(text, values)).rows }
          const results = await pglite.exec(text)
          return { rows: results.at(-1)?.rows ?? [] }
        }),
    },
    withLock: (key, fn) => locks.run(key, fn),
    changes: new LocalChangeFeed(),
    async close() {
      await db.destroy()
      await pglite.close()
    },
  }
}

async function openPostgres(databaseUrl: string): Promise<Store> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) })
  const changes = await PostgresChangeFeed.open(databaseUrl, pool)
  return {
    kind: 'postgres',
    db,
    sql: { executeSql: async (text, values) => ({ rows: (await pool.query(text, values as any[])).rows }) },
    async withLock(key, fn) {
      const client = await pool.connect()
      try {
        await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [key])
        try {
          return await fn()
        } finally {
          await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [key])
        }
      } finally {
        client.release()
      }
    },
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
