import { sql, type Kysely } from 'kysely'
import { idPrefixAt } from '../ids.ts'

/** How many months after this one have their partitions ready: a month of the service stopped is covered. */
const MONTHS_AHEAD = 2
/** How often the store checks, beside once at start: cheap (one catalog read) when nothing is due. */
export const RUN_PARTITIONS_EVERY_MS = 60 * 60_000

export interface PartitionChanges {
  /** The months made, by the name of their partition of runs. */
  made: string[]
  /** The partitions of runs dropped, each with its partition of run_steps. */
  dropped: string[]
}

/**
 * Keeps the partitions of `runs` and `run_steps` (migration 0023, runs-by-month.ts) by month, on the
 * embedded store, whose one connection runs this transaction alone:
 *
 * - Makes them from the last one made up to MONTHS_AHEAD months after `now`'s, each from the previous
 *   one's upper bound to the start of the next month (UTC). A month is empty when it is made, so
 *   making it builds empty indexes; it reads the default partition, which holds only ids no month
 *   covers, to check none belongs to the new month.
 * - Drops those that ended before `now` and hold no run and no timeline entry, as retention leaves
 *   them (core/retention/pruner.ts): each partition kept, empty or not, is one more that the claim
 *   and every statement not narrowed to one run reads.
 */
export async function ensureRunPartitions(db: Kysely<any>, now = new Date()): Promise<PartitionChanges> {
  return db.transaction().execute(async (trx) => {
    const months = await monthPartitions(trx)
    let covered = months.reduce<string | null>(
      (top, m) => (top === null || m.upper > top ? m.upper : top),
      null,
    )
    const made: string[] = []
    for (let ahead = 0; ahead <= MONTHS_AHEAD; ahead++) {
      const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + ahead + 1, 1))
      const upper = idPrefixAt('run', end)
      // Compared as the database compares them: an id's clock is digits and lower-case letters (core/ids.ts).
      if (covered !== null && upper <= covered) continue
      const month = monthName(new Date(end.getTime() - 1))
      const range = sql`for values from (${covered === null ? sql`minvalue` : sql.lit(covered)}) to (${sql.lit(upper)})`
      for (const table of ['runs', 'run_steps'])
        await sql`create table ${sql.id(`${table}_${month}`)} partition of ${sql.id(table)} ${range}`.execute(
          trx,
        )
      made.push(`runs_${month}`)
      covered = upper
    }
    const dropped: string[] = []
    const ended = idPrefixAt('run', now)
    for (const { name, upper } of months) {
      if (upper > ended) continue
      const steps = name.replace(/^runs_/, 'run_steps_')
      const { rows } = await sql<{ used: boolean }>`
        select exists (select from ${sql.id(name)}) or exists (select from ${sql.id(steps)}) as used`.execute(
        trx,
      )
      if (rows[0]?.used) continue
      await sql`alter table run_steps detach partition ${sql.id(steps)}`.execute(trx)
      await sql`alter table runs detach partition ${sql.id(name)}`.execute(trx)
      await sql`drop table ${sql.id(steps)}, ${sql.id(name)}`.execute(trx)
      dropped.push(name)
    }
    return { made, dropped }
  })
}

/** The range partitions of `runs` with their upper bounds (the default partition has none). */
async function monthPartitions(db: Kysely<any>): Promise<Array<{ name: string; upper: string }>> {
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'runs'::regclass`.execute(db)
  return rows.flatMap(({ name, bound }) => {
    // FOR VALUES FROM (…) TO ('run_…'); the default partition's is DEFAULT.
    const upper = /\bTO \('((?:[^']|'')*)'\)/.exec(bound)?.[1]?.replaceAll("''", "'")
    return upper === undefined ? [] : [{ name, upper }]
  })
}

const monthName = (at: Date): string =>
  `${at.getUTCFullYear()}_${String(at.getUTCMonth() + 1).padStart(2, '0')}`
