import { sql } from 'kysely'
import type { Db } from '../store/database.ts'
import { idPrefixAt } from '../ids.ts'
import { ifLeaseFree } from '../store/leases.ts'
import type { Plan } from '../store/schema.ts'
import type { RetentionSettings } from './policy.ts'

/** How often each process offers to prune; one of them does it (the lease), the others skip the turn. */
export const PRUNE_EVERY_MS = 60_000
/**
 * Rows deleted per statement. Each statement holds the embedded store's one thread while it runs, and
 * its dead rows are what the next VACUUM clears: small batches keep both pauses short, and the intake
 * gets its turn between them.
 */
export const PRUNE_BATCH = 500
/** Longer than a pass plausibly takes; a process that dies mid-pass gives the work up after this. */
const PRUNE_LEASE_MS = 10 * 60_000
const LEASE_KEY = 'retention:prune'
const FINISHED = ['succeeded', 'failed', 'cancelled', 'budget_exhausted', 'escalated'] as const

export interface PruneCounts {
  runs: number
  events: number
}

/**
 * Deletes finished runs (with their timelines) past their owner's plan's age or count, and events past
 * the event retention (docs/operating.md, "Retention"). Several instances on one PostgreSQL each run a
 * Pruner; a pass is claimed with a lease, and each batch takes its rows with SKIP LOCKED, so two
 * passes that overlap (a lease that lapsed) delete each row once and never wait on each other.
 */
export class Pruner {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<unknown> = Promise.resolve()
  private stopped = false
  /** The last pass this process did, for the admin's view. */
  last: { at: Date; deleted: PruneCounts } | null = null

  constructor(
    private readonly db: Db,
    private readonly settings: RetentionSettings,
    private readonly logError: (err: unknown) => void = () => {},
    private readonly pauseMs = 5,
  ) {}

  start(everyMs = PRUNE_EVERY_MS): void {
    this.stopped = false
    this.timer = setInterval(() => {
      this.running = this.pruneIfFree().catch(this.logError)
    }, everyMs)
    this.timer.unref()
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    await this.running
  }

  /** One pass, unless another process is doing one (then undefined). */
  async pruneIfFree(now = new Date()): Promise<PruneCounts | undefined> {
    return ifLeaseFree(this.db, LEASE_KEY, PRUNE_LEASE_MS, () => this.prune(now))
  }

  /** One pass, in batches, until nothing is left to delete. */
  async prune(now = new Date()): Promise<PruneCounts> {
    const deleted: PruneCounts = { runs: 0, events: 0 }
    for (const [plan, rule] of Object.entries(this.settings.runs) as Array<
      [Plan, RetentionSettings['runs'][Plan]]
    >) {
      const cutoff = new Date(now.getTime() - rule.maxAgeDays * DAY_MS)
      deleted.runs += await this.batches(() => this.deleteOldRuns(plan, cutoff))
      const owners = await this.db.selectFrom('users').select('id').where('plan', '=', plan).execute()
      for (const { id } of owners) deleted.runs += await this.deleteRunsPastCount(id, rule.maxRuns)
    }
    const eventCutoff = new Date(now.getTime() - this.settings.eventDays * DAY_MS)
    deleted.events += await this.batches(() => this.deleteOldEvents(eventCutoff))
    this.last = { at: now, deleted }
    return deleted
  }

  private async batches(batch: () => Promise<number>): Promise<number> {
    let total = 0
    for (;;) {
      if (this.stopped) return total
      const n = await batch()
      total += n
      if (n < PRUNE_BATCH) return total
      // The intake and the worker get their turn between batches.
      await new Promise((resolve) => setTimeout(resolve, this.pauseMs))
    }
  }

  private async deleteOldRuns(plan: Plan, cutoff: Date): Promise<number> {
    const { numAffectedRows } = await sql`
      delete from runs where id in (
        select r.id from runs r join users u on u.id = r.user_id
        where u.plan = ${plan} and r.created_at < ${cutoff} and r.status in (${sql.join(FINISHED)})
        limit ${PRUNE_BATCH} for update of r skip locked)`.execute(this.db)
    return Number(numAffectedRows ?? 0)
  }

  /**
   * The owner's newest `keep` runs stay, whatever their state; finished runs older than those go. The
   * boundary is found once a pass (it reads `keep` index entries), then the batches delete below it.
   */
  private async deleteRunsPastCount(userId: string, keep: number): Promise<number> {
    const boundary = await this.db
      .selectFrom('runs')
      .select('id')
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(keep)
      .limit(1)
      .executeTakeFirst()
    if (!boundary) return 0
    return this.batches(async () => {
      const { numAffectedRows } = await sql`
        delete from runs where id in (
          select id from runs
          -- The boundary's own time, read here: a JavaScript Date would drop its microseconds.
          where user_id = ${userId}
            and (created_at, id) <= (select created_at, id from runs where id = ${boundary.id})
            and status in (${sql.join(FINISHED)})
          limit ${PRUNE_BATCH} for update skip locked)`.execute(this.db)
      return Number(numAffectedRows ?? 0)
    })
  }

  /** Event ids begin with the time they were made (core/ids.ts), so the primary key finds the old ones. */
  private async deleteOldEvents(cutoff: Date): Promise<number> {
    const { numAffectedRows } = await sql`
      delete from events where id in (
        select id from events where id < ${idPrefixAt('evt', cutoff)} and received_at < ${cutoff}
        limit ${PRUNE_BATCH} for update skip locked)`.execute(this.db)
    return Number(numAffectedRows ?? 0)
  }
}

const DAY_MS = 24 * 60 * 60 * 1000
