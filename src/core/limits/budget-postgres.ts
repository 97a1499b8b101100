import { sql } from 'kysely'
import type { ChangeFeed } from '../store/changes.ts'
import type { Db } from '../store/database.ts'
import { TtlCache } from '../ttl-cache.ts'
import {
  MAX_WINDOW_MS,
  SWEEP_EVERY_MS,
  WINDOW_MARGIN_MS,
  type BudgetStore,
  type BudgetWindow,
  type TakeResult,
} from './budget.ts'

/**
 * How long a process may miss a pause another process learned of, for tokens without a fixed
 * budget, should the announcement on the change feed be lost. Platforms announce pauses in seconds;
 * a request sent inside this gap meets the platform's own 429, which pauses this process too.
 */
export const PAUSE_RECHECK_MS = 250

/** Change-feed kind of a pause announcement: "<milliseconds left> <budget key>". */
const PAUSE = 'rate_pause'

/**
 * The request log in PostgreSQL, shared by every process. Each take runs in one transaction that
 * holds an advisory lock per window key (taken in sorted order, so two takes cannot deadlock), and
 * uses the database's clock so that processes on different machines agree on time.
 */
export class PostgresBudgetStore implements BudgetStore {
  /** Pauses as this process last read them, by key: when each ends, on this process's clock (0: none). */
  private readonly pauses = new TtlCache<number>(PAUSE_RECHECK_MS)

  private lastSweep = 0

  /**
   * With a change feed, a pause one process learns of reaches the others at once. `sweepEveryMs`:
   * how often this process sweeps out requests older than any window and pauses that have ended.
   */
  constructor(
    private readonly db: Db,
    private readonly changes?: ChangeFeed,
    private readonly sweepEveryMs = SWEEP_EVERY_MS,
  ) {
    changes?.subscribe((kind, id) => {
      if (kind !== PAUSE) return
      const space = id.indexOf(' ')
      const waitMs = Number(id.slice(0, space))
      // The time left, not the end: processes' clocks differ, and a notice arrives in milliseconds.
      if (space > 0 && Number.isFinite(waitMs)) this.remember(id.slice(space + 1), Date.now() + waitMs)
    })
  }

  async tryTake(windows: BudgetWindow[]): Promise<TakeResult> {
    if (windows.every((w) => !Number.isFinite(w.limit))) return this.pausedFor(windows.map((w) => w.key))
    await this.sweepIfDue()
    const sorted = [...windows].sort((a, b) => a.key.localeCompare(b.key))
    return this.db.transaction().execute(async (trx) => {
      for (const w of sorted)
        await sql`select pg_advisory_xact_lock(hashtextextended(${`budget:${w.key}`}, 0))`.execute(trx)
      const { rows } = await sql<{
        now: string
      }>`select floor(extract(epoch from clock_timestamp()) * 1000)::bigint as now`.execute(trx)
      const now = Number(rows[0].now)
      let retryInMs = 0
      for (const w of sorted) {
        const block = await trx
          .selectFrom('rate_blocks')
          .select('until_ms')
          .where('key', '=', w.key)
          .executeTakeFirst()
        if (block && Number(block.until_ms) > now)
          retryInMs = Math.max(retryInMs, Number(block.until_ms) - now)
        if (!Number.isFinite(w.limit)) continue // no fixed budget: only pauses apply
        await trx
          .deleteFrom('rate_events')
          .where('key', '=', w.key)
          .where('at_ms', '<=', String(now - w.windowMs))
          .execute()
        const { rows: recent } = await sql<{ at_ms: string }>`
          select at_ms from rate_events where key = ${w.key} order by at_ms desc offset ${w.limit - 1} limit 1`.execute(
          trx,
        )
        // The limit-th most recent request must leave the window before another may go.
        if (recent.length > 0) retryInMs = Math.max(retryInMs, Number(recent[0].at_ms) + w.windowMs - now)
      }
      if (retryInMs > 0) return { granted: false, retryInMs }
      const counted = sorted.filter((w) => Number.isFinite(w.limit))
      if (counted.length)
        await trx
          .insertInto('rate_events')
          .values(counted.map((w) => ({ key: w.key, at_ms: String(now) })))
          .execute()
      return { granted: true }
    })
  }

  /**
   * Windows without a fixed budget (most platforms' tokens) count nothing, so they need no lock and
   * no transaction, only to know whether a pause holds them back. Pauses are rare and this runs on
   * every request to such a platform, so one read serves this process for PAUSE_RECHECK_MS; its own
   * pauses it knows at once.
   */
  private async pausedFor(keys: string[]): Promise<TakeResult> {
    if (keys.some((key) => this.pauses.get(key) === undefined)) await this.readPauses(keys)
    const now = Date.now()
    const waitMs = Math.max(0, ...keys.map((key) => (this.pauses.get(key) ?? 0) - now))
    return waitMs > 0 ? { granted: false, retryInMs: waitMs } : { granted: true }
  }

  private async readPauses(keys: string[]): Promise<void> {
    const { rows } = await sql<{ key: string; wait_ms: string }>`
      select key, until_ms - floor(extract(epoch from clock_timestamp()) * 1000)::bigint as wait_ms
      from rate_blocks where key in (${sql.join(keys)})`.execute(this.db)
    const now = Date.now()
    for (const key of keys) this.remember(key, 0)
    for (const row of rows) this.remember(row.key, now + Number(row.wait_ms))
  }

  /** Never shortens a pause this process already knows of. */
  private remember(key: string, endsAt: number): void {
    this.pauses.set(key, Math.max(endsAt, this.pauses.get(key) ?? 0))
  }

  /**
   * A take prunes only its own keys, so keys nobody takes any more would stay for ever: every
   * sweepEveryMs one take also deletes, for all keys, requests older than the longest window and
   * pauses that have ended. Each process sweeps on its own schedule; sweeps are idempotent.
   */
  private async sweepIfDue(): Promise<void> {
    if (Date.now() - this.lastSweep < this.sweepEveryMs) return
    this.lastSweep = Date.now()
    await sql`delete from rate_events where at_ms <= floor(extract(epoch from clock_timestamp()) * 1000)::bigint - ${MAX_WINDOW_MS + WINDOW_MARGIN_MS}`.execute(
      this.db,
    )
    await sql`delete from rate_blocks where until_ms <= floor(extract(epoch from clock_timestamp()) * 1000)::bigint`.execute(
      this.db,
    )
  }

  async block(keys: string[], untilMs: number): Promise<void> {
    await this.sweepIfDue()
    // untilMs is on this process's clock; close enough for a platform-announced pause of seconds.
    for (const key of keys) {
      this.remember(key, untilMs)
      await this.db
        .insertInto('rate_blocks')
        .values({ key, until_ms: String(untilMs) })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({ until_ms: sql`greatest(rate_blocks.until_ms, excluded.until_ms)` }),
        )
        .execute()
      await this.changes?.publish(PAUSE, `${Math.max(0, untilMs - Date.now())} ${key}`)
    }
  }
}
