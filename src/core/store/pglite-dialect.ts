import type { PGlite } from '@electric-sql/pglite'
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely'
import type { Lane, Mutex } from './mutex.ts'
import { statementOwner } from './statement-owner.ts'

// PGlite is one connection. Kysely transactions issue BEGIN … COMMIT as separate queries, so every
// user of the connection must take turns through one mutex; otherwise a
// query from elsewhere would land inside someone else's open transaction. A dialect made with a
// lane other than `ordinary` takes its turns by that lane's rule (Mutex): the store's `urgent` and
// `soonest` handles (database.ts).
export class PGliteDialect implements Dialect {
  constructor(
    private readonly pglite: PGlite,
    private readonly mutex: Mutex,
    private readonly lane: Lane = 'ordinary',
    /** The line this handle's statements wait in within their lane (Mutex). */
    private readonly key = '',
  ) {}
  createAdapter() {
    return new PostgresAdapter()
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite, this.mutex, this.lane, this.key)
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db)
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler()
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection
  constructor(
    pglite: PGlite,
    private readonly mutex: Mutex,
    private readonly lane: Lane,
    private readonly key: string,
  ) {
    this.connection = new PGliteConnection(pglite)
  }
  async init() {}
  async acquireConnection(): Promise<DatabaseConnection> {
    // The ordinary lane's statements wait in a line per owner (statement-owner.ts); those of no
    // owner in a line of their own, in their order.
    const key = this.lane === 'ordinary' && !this.key ? (statementOwner() ?? '') : this.key
    await this.mutex.lock(this.lane, key)
    return this.connection
  }
  async beginTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('begin'))
  }
  async commitTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('commit'))
  }
  async rollbackTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('rollback'))
  }
  async releaseConnection() {
    this.mutex.unlock()
  }
  async destroy() {}
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(query.sql, query.parameters as unknown[])
    const affected = result.affectedRows === undefined ? undefined : BigInt(result.affectedRows)
    return { rows: result.rows, numAffectedRows: affected }
  }
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PGlite')
  }
}
