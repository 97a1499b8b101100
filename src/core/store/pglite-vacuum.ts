import type { PGlite } from '@electric-sql/pglite'
import type { Mutex } from './mutex.ts'

/**
 * PGlite has no autovacuum (one process, no background workers). The runs table is a queue, each
 * run written three times, so it and its partial indexes would fill with dead rows for ever, and the
 * worker's sweep and claims slow down with them. So the embedded store does autovacuum's work
 * itself, between statements (VACUUM cannot run inside a transaction), on the service's one thread:
 * nothing else runs while it does, and no delivery is answered.
 *
 * So it works in small steps. A VACUUM's pause grows with the dead rows it clears and with the
 * table's indexes, which it reads whole: waiting for autovacuum's threshold (a fifth of the live rows)
 * let a burst's runs pile up, and the one VACUUM that cleared them held the thread for about 270 ms.
 * Checked each second and run at a fixed number of dead rows, each VACUUM clears about a second of a
 * burst (docs/scaling.md gives the pauses measured). ANALYZE is separate: its cost is its sample,
 * however little changed (about 40 ms on a table of 150,000 runs), and at autovacuum's threshold (a
 * tenth of the rows changed) it ran nearly every second of a burst. At half, it runs every several.
 * The check itself takes about a millisecond.
 */
export const PGLITE_MAINTENANCE_EVERY_MS = 1_000
const VACUUM_DEAD_ROWS = 5_000
const ANALYZE_THRESHOLD = 50
const ANALYZE_SCALE_FACTOR = 0.5
/**
 * The statistics sample is kept small: the queue's queries need only rough counts, and at the default
 * sample (30,000 rows) ANALYZE held the one thread for about a second on the trigger bench, during
 * which no delivery was answered (the p99 latency reached 1.15 s). At 10 it samples 3,000 rows, in
 * tens of milliseconds.
 */
const STATISTICS_TARGET = 10

export async function maintainPGlite(pglite: PGlite, mutex: Mutex): Promise<void> {
  await mutex.lock()
  try {
    if (pglite.closed) return
    // PGlite counts a transaction's changes here about a second after it ends.
    const { rows } = await pglite.query<{ name: string; vacuum: boolean; analyze: boolean }>(
      `select quote_ident(schemaname) || '.' || quote_ident(relname) as name, n_dead_tup >= $1 as vacuum,
              n_mod_since_analyze > $2::float8 + $3::float8 * n_live_tup as analyze
         from pg_stat_user_tables`,
      [VACUUM_DEAD_ROWS, ANALYZE_THRESHOLD, ANALYZE_SCALE_FACTOR],
    )
    const tables = (which: 'vacuum' | 'analyze') =>
      rows
        .filter((r) => r[which])
        .map((r) => r.name)
        .join(', ')
    const toVacuum = tables('vacuum')
    const toAnalyze = tables('analyze')
    if (toVacuum) await pglite.exec(`VACUUM ${toVacuum}`)
    if (toAnalyze) {
      await pglite.exec(`SET default_statistics_target = ${STATISTICS_TARGET}`)
      try {
        await pglite.exec(`ANALYZE ${toAnalyze}`)
      } finally {
        await pglite.exec('RESET default_statistics_target')
      }
    }
  } catch (err) {
    console.error('embedded store: vacuum or analyze failed:', err instanceof Error ? err.message : err)
  } finally {
    mutex.unlock()
  }
}
