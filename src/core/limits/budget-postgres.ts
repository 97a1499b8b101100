import { sql } from 'kysely'
import type { Db } from '../store/database.ts'
import type { BudgetStore, BudgetWindow, TakeResult } from './budget.ts'

/**
 * The request log in PostgreSQL, shared by every process. Each take runs in one transaction that
 * holds an advisory lock per window key (taken in sorted order, so two takes cannot deadlock), and
 * uses the database's clock so that processes on different machines agree on time.
 */
export class PostgresBudgetStore implements BudgetStore {
  constructor(private readonly db: Db) {}

  async tryTake(windows: BudgetWindow[]): Promise<TakeResult> {
    if (windows.every((w) => !Number.isFinite(w.limit))) return this.pausedFor(windows.map((w) => w.key))
    const sorted = [...windows].sort((a, b) => a.key.localeCompare(b.key))
    return this.db.transaction().execute(async (trx) => {
      for (const w of sorted) await sql`select pg_advisory_xact_lock(hashtextextended(${`budget:${w.key}`}, 0))`.execute(trx)
      const { rows } = await sql<{ now: string }>`select floor(extract(epoch from clock_timestamp()) * 1000)::bigint as now`.execute(trx)
      const now = Number(rows[0].now)
      let retryInMs = 0
      for (const w of sorted) {
        const block = await trx.selectFrom('rate_blocks').select('until_ms').where('key', '=', w.key).executeTakeFirst()
        if (block && Number(block.until_ms) > now) retryInMs = Math.max(retryInMs, Number(block.until_ms) - now)
        if (!Number.isFinite(w.limit)) continue // no fixed budget: only pauses apply
        await trx.deleteFrom('rate_events').where('key', '=', w.key).where('at_ms', '<=', String(now - w.windowMs)).execute()
        const { rows: recent } = await sql<{ at_ms: string }>`
          select at_ms from rate_events where key = ${w.key} order by at_ms desc offset ${w.limit - 1} limit 1`.execute(trx)
        // The limit-th most recent request must leave the window before another may go.
        if (recent.length > 0) retryInMs = Math.max(retryInMs, Number(recent[0].at_ms) + w.windowMs - now)
      }
      if (retryInMs > 0) return { granted: false, retryInMs }
      const counted = sorted.filter((w) => Number.isFinite(w.limit))
      if (counted.length) await trx.insertInto('rate_events').values(counted.map((w) => ({ key: w.key, at_ms: String(now) }))).execute()
      return { granted: true }
    })
  }

  /**
   * Windows without a fixed budget (most platforms' tokens) count nothing, so they need no lock and
   * no transaction: one read says whether a pause holds them back. That read runs on every request
   * to such a platform, where the locked path would cost five round trips.
   */
  private async pausedFor(keys: string[]): Promise<TakeResult> {
    const { rows } = await sql<{ wait_ms: string | null }>`
      select max(until_ms) - floor(extract(epoch from clock_timestamp()) * 1000)::bigint as wait_ms
      from rate_blocks where key in (${sql.join(keys)})`.execute(this.db)
    const waitMs = Number(rows[0]?.wait_ms ?? 0)
    return waitMs > 0 ? { granted: false, retryInMs: waitMs } : { granted: true }
  }

  async block(keys: string[], untilMs: number): Promise<void> {
    // untilMs is on this process's clock; close enough for a platform-announced pause of seconds.
    for (const key of keys) {
      await this.db.insertInto('rate_blocks').values({ key, until_ms: String(untilMs) })
        .onConflict((oc) => oc.column('key').doUpdateSet({ until_ms: sql`greatest(rate_blocks.until_ms, excluded.until_ms)` }))
        .execute()
    }
  }
}
