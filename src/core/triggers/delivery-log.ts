import { sql } from 'kysely'
import { newId } from '../ids.ts'
import type { Db } from '../store/database.ts'
import { isPostgresError, POSTGRES_ERRORS } from '../store/postgres-errors.ts'
import { asNoOwner } from '../store/statement-owner.ts'

/**
 * What became of one delivery (or poll) for one subscription, or for the webhook as a whole:
 * - `accepted`: stored, and its run started (or failed at its mapping);
 * - `duplicate`: the platform sent an event already stored; nothing started;
 * - `unmatched`: the subscription's trigger does not fire for it (another board, list or event type);
 * - `skipped`: the loop guard left it, made by the integration's own account;
 * - `refused`: not accepted at all (a bad signature, an unknown secret, a body not the platform's);
 * - `failed`: not stored because of an error here; the platform sends it again;
 * - `polled`: a poll that found nothing new.
 */
export type DeliveryOutcome =
  'accepted' | 'duplicate' | 'unmatched' | 'skipped' | 'refused' | 'failed' | 'polled'

export interface SubscriptionOutcome {
  outcome: DeliveryOutcome
  reason?: string
  run_id?: string
}

export interface DeliveryRecord {
  source: string
  userId: string
  outcome: DeliveryOutcome
  reason?: string
  eventType?: string
  eventKey?: string
  subscriptions?: Record<string, SubscriptionOutcome>
}

/** Why the loop guard left an event, and how to change that. */
export const OWN_CHANGE =
  "made by the integration's own account (as a run acting through it would), so the loop guard skipped it; set start_on_own_changes to start on such changes"

/** How many deliveries each source keeps: enough to see a pattern, never a growing table. */
export const KEPT_PER_SOURCE = 100
/** How long a record waits in memory before its batch is written. */
const FLUSH_MS = 1_000
/** A batch this large is written at once. */
const FLUSH_AT = 500
/**
 * The most records one statement writes. On the embedded store a statement holds the one connection
 * until it ends: a burst's whole batch in one insert (290 records) held it for 120–145 ms under load,
 * and another user's delivery, whose write goes first at the next turn, waited for all of it
 * (issue 22 §9). A hundred at a time, it waits for a third of that at most.
 */
export const RECORDS_PER_STATEMENT = 100
/** Records held in memory at most (the database unreachable for long): the oldest go first. */
const MAX_PENDING = 20_000

/**
 * The recent deliveries of each webhook and poll, with their outcomes (docs/triggers.md, "When a
 * trigger does not fire"). The intake must not pay a write per delivery for a diagnostic record,
 * so records wait in memory and are written in batches about once a second, each batch then
 * trimming its sources back to their last KEPT_PER_SOURCE. Readers in this process flush first, so
 * what they read includes every delivery this process answered; another instance's deliveries show
 * within a second. A record is diagnostic: one lost to a crash or a failed write costs no event
 * (events and runs are written by the intake's own transaction).
 */
export class DeliveryLog {
  private pending: Array<DeliveryRecord & { id: string; at: Date }> = []
  private timer: NodeJS.Timeout | null = null
  private flushing: Promise<void> = Promise.resolve()

  constructor(
    private readonly db: Db,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  record(entry: DeliveryRecord): void {
    this.pending.push({ ...entry, id: newId('dlv'), at: new Date() })
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING)
    if (this.pending.length >= FLUSH_AT) void this.flush()
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS)
      this.timer.unref()
    }
  }

  /** Writes what is waiting; resolves once every record made before the call is written (or dropped). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const batch = newestPerSource(this.pending)
    this.pending = []
    // Many owners' records in one write: no one's line (store/statement-owner.ts), whichever
    // delivery happened to start it.
    this.flushing = this.flushing.then(() => (batch.length ? asNoOwner(() => this.write(batch)) : undefined))
    return this.flushing
  }

  /** The last deliveries of the given sources, newest first. */
  async recent(sources: string[], limit = KEPT_PER_SOURCE) {
    await this.flush()
    if (sources.length === 0) return []
    return this.db
      .selectFrom('trigger_deliveries')
      .selectAll()
      .where('source', 'in', sources)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()
  }

  private async write(batch: Array<DeliveryRecord & { id: string; at: Date }>): Promise<void> {
    try {
      for (let i = 0; i < batch.length; i += RECORDS_PER_STATEMENT) {
        await this.db
          .insertInto('trigger_deliveries')
          .values(
            batch.slice(i, i + RECORDS_PER_STATEMENT).map((r) => ({
              id: r.id,
              source: r.source,
              user_id: r.userId,
              received_at: r.at,
              outcome: r.outcome,
              reason: r.reason ?? null,
              event_type: r.eventType ?? null,
              event_key: r.eventKey ?? null,
              subscriptions: JSON.stringify(r.subscriptions ?? {}),
            })),
          )
          // Written again after a removed user's records were taken out (below): once each.
          .onConflict((oc) => oc.column('id').doNothing())
          .execute()
      }
      // The ring: each source written to keeps its newest KEPT_PER_SOURCE. The index on (source, id)
      // makes this read at most that many and the batch's own rows per source.
      const sources = [...new Set(batch.map((r) => r.source))]
      await sql`
        delete from trigger_deliveries d
        using (
          select id from (
            select id, row_number() over (partition by source order by id desc) as n
            from trigger_deliveries where source in (${sql.join(sources)})
          ) ranked where n > ${KEPT_PER_SOURCE}
        ) old
        where d.id = old.id`.execute(this.db)
    } catch (err) {
      // A user removed since their deliveries were answered: a statement holding one of their records
      // fails as a whole, so their records go, as the rest of their rows did, and the others' are
      // written. Anything else (the database unreachable): the records go, and the error is told.
      if (isPostgresError(err, POSTGRES_ERRORS.foreignKeyViolation)) {
        const kept = await this.ofUsersStillHere(batch).catch(() => batch)
        if (kept.length < batch.length) return kept.length ? this.write(kept) : undefined
      }
      this.onError(err)
    }
  }

  private async ofUsersStillHere<R extends DeliveryRecord>(batch: R[]): Promise<R[]> {
    const ids = [...new Set(batch.map((r) => r.userId))]
    const here = await this.db.selectFrom('users').select('id').where('id', 'in', ids).execute()
    const still = new Set(here.map((u) => u.id))
    return batch.filter((r) => still.has(r.userId))
  }
}

/**
 * The batch's newest KEPT_PER_SOURCE records of each source, in their order: the ring would delete
 * the others in the same flush. A burst from one webhook filled each flush with 500 records, wrote
 * them and deleted 400 of them again, on the embedded store in the intake's own thread.
 */
function newestPerSource<R extends { source: string }>(batch: R[]): R[] {
  const left = new Map<string, number>()
  const kept: R[] = []
  for (let i = batch.length - 1; i >= 0; i--) {
    const r = batch[i]!
    const n = left.get(r.source) ?? KEPT_PER_SOURCE
    if (n === 0) continue
    left.set(r.source, n - 1)
    kept.push(r)
  }
  return kept.reverse()
}
