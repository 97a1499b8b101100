import type { User } from '../access/users.ts'
import { PLAN_LIMITS } from '../access/plans.ts'
import type { Db } from '../store/database.ts'
import type { RunError } from './run-error.ts'

/** How long a count of an owner's waiting runs is trusted, with this process's own admissions added. */
const RECOUNT_MS = 1_000

interface Count {
  waiting: number
  at: number
  loading?: Promise<void>
}

/**
 * The cap on the runs one owner may have waiting in the queue (PLAN_LIMITS.maxQueuedRuns). The
 * count is kept with the rows (`queued_run_counts`, updated by triggers on runs in the statement
 * that moves a run into or out of the queue), so reading it is one row however long the queue:
 * counting the runs themselves read one index entry per waiting run, and a burst's 20,000 held the
 * embedded store's one thread for 30–66 ms at every recount, while another owner's delivery waited
 * (issue 22, §9). It is still read at most once a second per owner (one query at a time), since
 * each read is a turn of that connection, and what this process admits meanwhile is added to it.
 * The cap is therefore close, not exact: processes sharing a store each admit up to a second's
 * worth past it before their next read. That is the point of it: a burst stops at about the cap
 * rather than growing the queue without end.
 *
 * A user's removal races nothing here: once a user has had a waiting run their count row exists
 * until the removal deletes it by cascade, so a trigger fired by their runs moving meanwhile takes
 * the ON CONFLICT update path (no foreign key check, no new row), and an insert of a new run waits
 * for the removal on the users row and then meets the runs' own foreign key. queue-cap.test.ts
 * removes users while their runs move, on PostgreSQL with real concurrency.
 */
export class QueueCap {
  private readonly counts = new Map<string, Count>()

  constructor(private readonly db: Db) {}

  /** Why `n` more runs of this owner may not wait in the queue now, or null (and they are counted). */
  async refusal(user: Pick<User, 'id' | 'plan'>, n = 1): Promise<RunError | null> {
    const cap = PLAN_LIMITS[user.plan].maxQueuedRuns
    const count = await this.current(user.id)
    if (count.waiting + n > cap)
      return {
        code: 'queue_full',
        message: `${count.waiting.toLocaleString('en')} runs are already waiting to start, the most the ${user.plan} plan allows (${cap.toLocaleString('en')}); wait for them to start, or cancel some, then start this one again`,
      }
    count.waiting += n
    return null
  }

  private async current(userId: string): Promise<Count> {
    let count = this.counts.get(userId)
    if (!count) {
      count = { waiting: 0, at: 0 }
      this.counts.set(userId, count)
    }
    if (Date.now() - count.at >= RECOUNT_MS) {
      const c = count
      c.loading ??= this.countWaiting(userId).then(
        (waiting) => {
          c.waiting = waiting
          c.at = Date.now()
          c.loading = undefined
        },
        (err) => {
          c.loading = undefined
          throw err
        },
      )
      // Only an owner never counted waits for the count; else it is taken in the background and the
      // last one (with what was admitted since) serves meanwhile: an owner whose events come once a
      // second recounted at nearly every one, and waited for it behind another user's burst on the
      // embedded store's one connection (docs/scaling.md, "One user's burst").
      if (c.at === 0) await c.loading
      else c.loading.catch(() => {}) // the next event counts again
    }
    return count
  }

  private async countWaiting(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('queued_run_counts')
      .select('waiting')
      .where('user_id', '=', userId)
      .executeTakeFirst()
    return Number(row?.waiting ?? 0)
  }
}
