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

/**
 * One maintenance turn, in steps that each hold the store's one thread for one statement on one
 * table: reading the statistics, then each table's VACUUM, then each table's ANALYZE. Between steps
 * the mutex goes round, so a delivery that arrived meanwhile waits for one step, not for all of them.
 * Done as one hold, a turn's pause was the sum of its statements (VACUUM of runs, then ANALYZE of
 * runs, events and the queue's counts), and it grew with what an old installation keeps: the bench's
 * longest pause was 129 ms with 1,000,000 runs kept against 82 ms with 10,000 (docs/benchmarks.md,
 * "An old installation"). What a step still costs: a VACUUM reads the table's pages changed since
 * the last one and, when it clears dead rows from the indexes, every page of each index (PostgreSQL's
 * B-tree vacuum has no partial pass); an ANALYZE reads at most its sample's pages (STATISTICS_TARGET).
 */
export async function maintainPGlite(
  pglite: PGlite,
  mutex: Mutex,
  /** Told how long each step held the thread (the bench's "longest maintenance pause"). */
  held: (ms: number) => void = () => {},
): Promise<void> {
  const steps = await oneStep(pglite, mutex, held, () => plannedSteps(pglite))
  for (const step of steps ?? []) await oneStep(pglite, mutex, held, () => step(pglite))
}

type Step = (pglite: PGlite) => Promise<unknown>

/** What this turn should do, read from the statistics PGlite keeps (one small statement). */
async function plannedSteps(pglite: PGlite): Promise<Step[]> {
  // PGlite counts a transaction's changes here about a second after it ends.
  const { rows } = await pglite.query<{ name: string; vacuum: boolean; analyze: boolean }>(
    `select quote_ident(schemaname) || '.' || quote_ident(relname) as name, n_dead_tup >= $1 as vacuum,
            n_mod_since_analyze > $2::float8 + $3::float8 * n_live_tup as analyze
       from pg_stat_user_tables`,
    [VACUUM_DEAD_ROWS, ANALYZE_THRESHOLD, ANALYZE_SCALE_FACTOR],
  )
  const vacuums = rows
    .filter((r) => r.vacuum)
    .map(
      (r): Step =>
        (db) =>
          db.exec(`VACUUM ${r.name}`),
    )
  const analyzes = rows
    .filter((r) => r.analyze)
    .map((r): Step => async (db) => {
      await db.exec(`SET default_statistics_target = ${STATISTICS_TARGET}`)
      try {
        await db.exec(`ANALYZE ${r.name}`)
      } finally {
        await db.exec('RESET default_statistics_target')
      }
    })
  return [...vacuums, ...analyzes]
}

/** Runs one step holding the mutex, unless the store closed meanwhile; a failed step is logged, and the next one still runs. */
async function oneStep<T>(
  pglite: PGlite,
  mutex: Mutex,
  held: (ms: number) => void,
  step: () => Promise<T>,
): Promise<T | undefined> {
  await mutex.lock()
  const since = performance.now()
  try {
    if (pglite.closed) return undefined
    return await step()
  } catch (err) {
    console.error('embedded store: vacuum or analyze failed:', err instanceof Error ? err.message : err)
    return undefined
  } finally {
    held(performance.now() - since)
    mutex.unlock()
  }
}
