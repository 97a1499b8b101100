import { sql, type Kysely, type RawBuilder } from 'kysely'
import { idPrefixAt } from '../ids.ts'

/** How many months after this one have their partitions ready: a month of the service stopped is covered. */
const MONTHS_AHEAD = 2
/** How often each process checks, beside once at start: cheap (one catalog read) when nothing is due. */
export const RUN_PARTITIONS_EVERY_MS = 60 * 60_000
/** Taken for the transaction, so two processes on one PostgreSQL do not both make a month. */
const LOCK = 7400002

/**
 * Makes the months' partitions of `runs` and `run_steps` (migration 0023, runs-by-month.ts) from the
 * last one made up to MONTHS_AHEAD months after `now`'s, each from the previous one's upper bound to
 * the start of the next month (UTC), and returns the names made.
 *
 * Each is made as a table and then attached: on PostgreSQL, CREATE TABLE … PARTITION OF locks the
 * parent against every reader for the statement, where ATTACH PARTITION lets reads and writes go on
 * (it does lock the default partition, which holds only ids no month covers, and reads it to check
 * none belongs to the new month). A month is empty when it is made, so attaching it builds empty
 * indexes and checks nothing.
 */
export async function ensureRunPartitions(db: Kysely<any>, now = new Date()): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${LOCK})`.execute(trx)
    let covered = await highestUpperBound(trx)
    const made: string[] = []
    for (let ahead = 0; ahead <= MONTHS_AHEAD; ahead++) {
      const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + ahead + 1, 1))
      const upper = idPrefixAt('run', end)
      // Plain comparison is the database's here: ids are ASCII and the stores compare them by byte (C collation).
      if (covered !== null && upper <= covered) continue
      const month = monthName(new Date(end.getTime() - 1))
      const range = sql`for values from (${covered === null ? sql`minvalue` : sql.lit(covered)}) to (${sql.lit(upper)})`
      for (const table of ['runs', 'run_steps'] as const)
        await addPartition(trx, table, `${table}_${month}`, range)
      made.push(`runs_${month}`)
      covered = upper
    }
    return made
  })
}

/** Makes `name` and attaches it to `table` for `bound` (a FOR VALUES clause, or DEFAULT). */
export async function addPartition(
  db: Kysely<any>,
  table: 'runs' | 'run_steps',
  name: string,
  bound: RawBuilder<unknown>,
): Promise<void> {
  await sql`create table ${sql.id(name)} (like ${sql.id(table)} including defaults including constraints)`.execute(
    db,
  )
  await sql`alter table ${sql.id(table)} attach partition ${sql.id(name)} ${bound}`.execute(db)
}

/** The highest upper bound of the range partitions of `runs` (null when it has none). */
async function highestUpperBound(db: Kysely<any>): Promise<string | null> {
  const { rows } = await sql<{ bound: string }>`
    select pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'runs'::regclass`.execute(db)
  let highest: string | null = null
  for (const { bound } of rows) {
    // FOR VALUES FROM (…) TO ('run_…'); the default partition's is DEFAULT.
    const upper = /\bTO \('((?:[^']|'')*)'\)/.exec(bound)?.[1]?.replaceAll("''", "'")
    if (upper !== undefined && (highest === null || upper > highest)) highest = upper
  }
  return highest
}

const monthName = (at: Date): string =>
  `${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`
