import { sql } from 'kysely'
import { noMetrics, type Metrics } from '../metrics.ts'
import type { Db } from '../store/database.ts'
import { GroupCommit } from '../store/group-commit.ts'
import { retryingDeadlocks } from '../store/deadlocks.ts'
import { statementOwner } from '../store/statement-owner.ts'
import type { RunStatus, StepStatus, TimelineKind } from '../store/schema.ts'
import type { Summary } from '../tools/define.ts'
import type { Attempt, RunError, StepRow } from './runs.ts'
import { capStored } from './stored-value.ts'
import type { Lease } from './worker.ts'

export interface StepStart {
  seq: number
  key: string
  kind: TimelineKind
  toolId?: string | null
  integrationId?: string | null
  input?: unknown
}

export interface StepEnd {
  status: Exclude<StepStatus, 'running'>
  output?: unknown
  summary?: Summary | null
  error?: RunError | null
}

/** How a run may end: a model agent's run may also run out of budget or be handed to a person. */
export type EndStatus = Extract<
  RunStatus,
  'succeeded' | 'failed' | 'cancelled' | 'budget_exhausted' | 'escalated'
>

/** How long an external agent may hold a delivered run before it is failed as timed out (docs/agents.md). */
export const EXTERNAL_RUN_DEADLINE_MS = 24 * 60 * 60 * 1000

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value))
/** What a step's input or output keeps in the store: at most `maxBytes`, cut with a marker past it (stored-value.ts). */
type Keep = (value: unknown) => unknown

/**
 * A timeline entry that ended without a call: a skipped step, or one whose template failed. It is
 * not written on its own: it goes with the run's next write (the next call's start, or the run's
 * end). A crash before then loses nothing, because the resumed run reaches the same entry again from
 * what is stored (its inputs, its event, the outputs of the calls before it).
 */
export interface Settled {
  step: StepStart
  end: StepEnd
}

/**
 * An entry's end that a model run's claim carries with its next write (claimed-timeline.ts): the
 * next entry's begin, or the run's end. Nothing the run does between the two is seen outside it.
 */
export interface PendingEnd {
  seq: number
  end: StepEnd
  attempts?: Attempt[]
}

interface RunEnd {
  runId: string
  holder: string
  status: EndStatus
  result: unknown
  error: RunError | null
  settled: Settled[]
  modelState?: unknown
  endings: PendingEnd[]
}

/**
 * What the database alone knows of an entry a begin wrote: when it began and, for an entry written
 * ended, when that was (its clock, as every stamp a run's timeline shows).
 */
export interface EntryStamp {
  seq: number
  started_at: Date
  finished_at: Date | null
}

/** One claim's begin as begin_runs_steps_stamped takes it (run-functions.ts), its rows as JSON values. */
interface Begin {
  run_id: string
  holder: string
  unless_cancelled: boolean
  store_state: boolean
  model_state: unknown
  rows: Array<{ seq: number }>
  endings: Array<{ seq: number }>
}

/**
 * An entry's columns as the store keeps them, `keep` applied to its input and output: running when it
 * has no end. As JSON values for jsonb_to_recordset, and as a model run's claim keeps its own copy
 * (claimed-timeline.ts).
 */
export const entryValues = (runId: string, step: StepStart, end: StepEnd | null, keep: Keep) => ({
  run_id: runId,
  seq: step.seq,
  key: step.key,
  kind: step.kind,
  tool_id: step.toolId ?? null,
  integration_id: step.integrationId ?? null,
  input: keep(step.input) ?? null,
  status: end?.status ?? ('running' as const),
  output: keep(end?.output) ?? null,
  summary: end?.summary ?? null,
  error: end?.error ?? null,
})

/** A pending end's row as JSON values (for jsonb_to_recordset). */
const endingEntry = (runId: string, { seq, end, attempts }: PendingEnd, keep: Keep) => ({
  run_id: runId,
  seq,
  status: end.status,
  output: keep(end.output) ?? null,
  summary: end.summary ?? null,
  error: end.error ?? null,
  attempts: attempts ?? null,
})

/**
 * The writes a worker makes to a run and its timeline. A step's result is stored the moment it
 * completes, so a resumed run skips it; every write that ends or hands back the run requires the
 * lease, so a worker that lost its run to another process cannot overwrite what that one does.
 */
export class RunState {
  private readonly ends: GroupCommit<RunEnd, boolean>
  /**
   * Entries begun at the same moment, by any of this worker's claims, share one statement (a group
   * commit), as runs' ends do: a busy worker begins an entry for every model call and tool call of
   * every run it holds.
   */
  private readonly begins: GroupCommit<Begin, EntryStamp[] | null>
  /** What a step's input or output keeps in the store (stored-value.ts). */
  readonly keep: Keep
  /** A run went back to the queue until `at`: the worker wakes then (no poll has to find it). */
  onLater: (at: Date) => void = () => {}

  constructor(
    private readonly db: Db,
    private readonly metrics: Metrics = noMetrics,
    stepStoreMaxBytes: number = Number.POSITIVE_INFINITY,
  ) {
    this.ends = new GroupCommit((ends) => this.writeEnds(ends))
    this.begins = new GroupCommit((begins) => this.writeBegins(begins))
    this.keep = (value) => capStored(value, stepStoreMaxBytes).value
  }

  async steps(runId: string): Promise<StepRow[]> {
    return this.db.selectFrom('run_steps').selectAll().where('run_id', '=', runId).orderBy('seq').execute()
  }

  /**
   * A step's call is about to go out: its entry is stored as running first, so a crash during the
   * call is seen on resume. Entries that ended without a call before it are written with it. The
   * stamps of the entries written, in timeline order, or null when the claim lost the run (fenced,
   * see `fence`), or, with `unlessCancelled`, when a person has asked to cancel it: nothing is
   * written and the call must not go out. `modelState`, when given, is stored on the run in the same
   * statement (a model run's state as it starts, runner.ts), and so are `endings`, earlier entries'
   * ends the claim held back for this write (claimed-timeline.ts); their stamps come back with the
   * new one's. Every other column is what the caller gave, as `keep` cut it.
   */
  async begin(
    runId: string,
    lease: Lease,
    step: StepStart,
    attempts: Attempt[] = [],
    settled: Settled[] = [],
    {
      unlessCancelled = false,
      modelState,
      endings = [],
    }: { unlessCancelled?: boolean; modelState?: unknown; endings?: PendingEnd[] } = {},
  ): Promise<EntryStamp[] | null> {
    const rows = [
      ...settled.map((s) => entryValues(runId, s.step, s.end, this.keep)),
      { ...entryValues(runId, step, null, this.keep), attempts },
    ].map((row) => ({ attempts: [], ...row }))
    // In the run's owner's line (the worker runs each run as its owner's): another owner's begin
    // goes in the next write however many of one owner's are waiting.
    return this.begins.submit(
      {
        run_id: runId,
        holder: lease.holder,
        unless_cancelled: unlessCancelled,
        store_state: modelState !== undefined,
        model_state: modelState ?? null,
        rows,
        endings: endings.map((e) => endingEntry(runId, e, this.keep)),
      },
      statementOwner(),
    )
  }

  /**
   * One call of the database function begin_runs_steps_stamped (store/migrations.ts, 0026) for the
   * begins of one group commit: each is begin_run_steps (0022) with its fence, the held-back ends and
   * the new entries, both or neither. A begin's stamps are those of its run at the places it wrote;
   * a begin its fence refused wrote none. Two begins of one run in one write (reads a model run
   * begins together) write different places.
   */
  private async writeBegins(begins: Begin[]): Promise<Array<EntryStamp[] | null>> {
    // One statement, rolled back whole when PostgreSQL breaks a deadlock with it (a removal of one
    // of the batch's owners, access/admin.ts): tried again, rather than every run of the batch lapsing.
    const { rows: written } = await retryingDeadlocks(() =>
      sql<EntryStamp & { run_id: string }>`
      select * from begin_runs_steps_stamped(${JSON.stringify(begins)}::jsonb)`.execute(this.db),
    )
    const byPlace = new Map(written.map(({ run_id, ...stamp }) => [`${run_id} ${stamp.seq}`, stamp]))
    return begins.map((b) => {
      const own = [...b.rows, ...b.endings]
        .map((r) => byPlace.get(`${b.run_id} ${r.seq}`))
        .filter((stamp) => stamp !== undefined)
      return own.length > 0 ? own.sort((x, y) => x.seq - y.seq) : null
    })
  }

  /**
   * The fencing condition of a claim's writes: the run is running under this very claim. The row is
   * locked for share, so a sweep that would hand the run on waits for the write to commit and the
   * next claim then reads it (a stalled execution's write lands before the hand-over or not at all).
   */
  private fence(runId: string, lease: Lease, unlessCancelled = false) {
    const notCancelled = unlessCancelled ? sql` and not cancel_requested` : sql``
    return sql`select id from runs where id = ${runId} and lease_holder = ${lease.holder} and status = 'running'${notCancelled} for share`
  }

  /**
   * A new timeline entry at the end, answering its place. Entries an external agent's concurrent
   * tool calls add take their places one at a time, under the run's row lock: reading the last place
   * and taking the next without it let simultaneous calls collide, and the losers were refused.
   */
  async append(
    runId: string,
    step: Omit<StepStart, 'seq' | 'key'>,
    key: (seq: number) => string,
  ): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await trx.selectFrom('runs').select('id').where('id', '=', runId).forUpdate().executeTakeFirst()
      const last = await trx
        .selectFrom('run_steps')
        .select((eb) => eb.fn.max('seq').as('max'))
        .where('run_id', '=', runId)
        .executeTakeFirst()
      const seq = last?.max === null || last?.max === undefined ? 0 : Number(last.max) + 1
      await trx
        .insertInto('run_steps')
        .values({
          run_id: runId,
          seq,
          key: key(seq),
          kind: step.kind,
          tool_id: step.toolId ?? null,
          integration_id: step.integrationId ?? null,
          input: json(this.keep(step.input)),
          status: 'running',
          attempts: '[]',
        })
        .execute()
      return seq
    })
  }

  /**
   * The attempts of an entry still in progress; one that ended meanwhile (its run did) keeps its end.
   * With a lease, only while that claim holds the run (null otherwise: the execution stops there).
   * The entry as stored.
   */
  async attempts(runId: string, seq: number, attempts: Attempt[], lease?: Lease): Promise<StepRow | null> {
    const row = await this.db
      .updateTable('run_steps')
      .set({ attempts: JSON.stringify(attempts) })
      .where('run_id', '=', runId)
      .where('seq', '=', seq)
      .where('status', '=', 'running')
      .$if(lease !== undefined, (q) => q.where(sql<boolean>`exists (${this.fence(runId, lease!)})`))
      .returningAll()
      .executeTakeFirst()
    return row ?? null
  }

  /**
   * An entry's end, and the entry as stored. With a lease, only while that claim holds the run (null
   * otherwise). Without one: an external agent's own tool calls and its delivery's record, which its
   * run token or the agent's report govern, not a worker's claim.
   */
  async end(
    runId: string,
    seq: number,
    end: StepEnd,
    attempts?: Attempt[],
    lease?: Lease,
  ): Promise<StepRow | null> {
    const row = await this.db
      .updateTable('run_steps')
      .set({
        status: end.status,
        output: json(this.keep(end.output)),
        summary: json(end.summary ?? null),
        error: json(end.error ?? null),
        finished_at: new Date(),
        ...(attempts ? { attempts: JSON.stringify(attempts) } : {}),
      })
      .where('run_id', '=', runId)
      .where('seq', '=', seq)
      .$if(lease !== undefined, (q) => q.where(sql<boolean>`exists (${this.fence(runId, lease!)})`))
      .returningAll()
      .executeTakeFirst()
    return row ?? null
  }

  /**
   * Ends the run, with the entries that ended without a call since the last write (and a model
   * run's own state and the entry ends its claim held back, in the same write); false when the lease was lost (another worker owns the run
   * now), and then nothing is written. Runs that end at the same moment share one statement (a group
   * commit), so a worker finishing many short runs pays a fraction of a round trip for each.
   */
  async finish(
    runId: string,
    lease: Lease,
    status: EndStatus,
    outcome: { result?: unknown; error?: RunError | null; modelState?: unknown },
    settled: Settled[] = [],
    endings: PendingEnd[] = [],
  ): Promise<boolean> {
    const ended = await this.ends.submit(
      {
        runId,
        holder: lease.holder,
        status,
        result: outcome.result,
        error: outcome.error ?? null,
        settled,
        modelState: outcome.modelState,
        endings,
      },
      statementOwner(),
    )
    if (ended) this.metrics.runFinished(status)
    return ended
  }

  /** One call of the database function end_runs (store/migrations.ts, 0022) for the ends of one group commit. */
  private async writeEnds(ends: RunEnd[]): Promise<boolean[]> {
    // As the begins: tried again when chosen to break a deadlock.
    const { rows } = await retryingDeadlocks(() =>
      sql<{ id: string; holder: string }>`
      select id, holder from end_runs(
        ${JSON.stringify(ends.map((e) => ({ id: e.runId, holder: e.holder, status: e.status, result: e.result ?? null, error: e.error, model_state: e.modelState })))}::jsonb,
        ${JSON.stringify(ends.flatMap((e) => e.settled.map((entry) => ({ ...entryValues(e.runId, entry.step, entry.end, this.keep), holder: e.holder }))))}::jsonb,
        ${JSON.stringify(ends.flatMap((e) => e.endings.map((ending) => ({ ...endingEntry(e.runId, ending, this.keep), holder: e.holder }))))}::jsonb)`.execute(
        this.db,
      ),
    )
    const done = new Set(rows.map((r) => `${r.id} ${r.holder}`))
    return ends.map((e) => done.has(`${e.runId} ${e.holder}`))
  }

  /**
   * Back to the queue until `at` (a long retry wait, a delivery's next attempt): the worker is free
   * meanwhile. False when the run is no longer this worker's: an external agent reported it finished
   * while its delivery was in flight, or another worker took it over.
   */
  async later(runId: string, lease: Lease, at: Date): Promise<boolean> {
    const moved = await this.db
      .updateTable('runs')
      .set({ status: 'queued', available_at: at, lease_holder: null, lease_expires_at: null })
      .where('id', '=', runId)
      .where('lease_holder', '=', lease.holder)
      .where('status', '=', 'running')
      .executeTakeFirst()
    if (moved.numUpdatedRows > 0n) this.onLater(at)
    return moved.numUpdatedRows > 0n
  }

  /**
   * Running, but held by nobody: an external agent has it and will report back with its token. Not
   * when a cancel was asked for meanwhile: a run nobody holds would never see that request, so the
   * caller ends it instead (false).
   */
  async handOver(runId: string, lease: Lease): Promise<boolean> {
    // available_at, unused while running, holds the deadline by which the agent must report (the worker's sweep fails it after).
    const handed = await this.db
      .updateTable('runs')
      .set({
        lease_holder: null,
        lease_expires_at: null,
        available_at: new Date(Date.now() + EXTERNAL_RUN_DEADLINE_MS),
      })
      .where('id', '=', runId)
      .where('lease_holder', '=', lease.holder)
      .where('status', '=', 'running')
      .where('cancel_requested', '=', false)
      .executeTakeFirst()
    return handed.numUpdatedRows > 0n
  }

  /**
   * Waits for a person without holding a worker (docs/model-agents.md, "Approvals"): the run leaves
   * its claim and is claimed again when the approval is decided, or at `until`, when it expires.
   * False when the claim was lost or a cancel was asked for (the caller then ends the run).
   */
  async park(runId: string, lease: Lease, until: Date): Promise<boolean> {
    const parked = await this.db
      .updateTable('runs')
      .set({
        status: 'waiting_for_approval',
        available_at: until,
        lease_holder: null,
        lease_expires_at: null,
      })
      .where('id', '=', runId)
      .where('lease_holder', '=', lease.holder)
      .where('status', '=', 'running')
      .where('cancel_requested', '=', false)
      .executeTakeFirst()
    return parked.numUpdatedRows > 0n
  }

  /** A model run's own state (its budget extensions, tools approved for the rest of the run), under the claim. */
  async modelState(runId: string, lease: Lease, value: unknown): Promise<boolean> {
    const result = await this.db
      .updateTable('runs')
      .set({ model_state: JSON.stringify(value) })
      .where('id', '=', runId)
      .where('lease_holder', '=', lease.holder)
      .where('status', '=', 'running')
      .executeTakeFirst()
    return result.numUpdatedRows > 0n
  }

  /** Whether the run has ended (by its worker, a cancel, or an external agent's report). */
  async finished(runId: string): Promise<boolean> {
    const row = await this.db.selectFrom('runs').select('status').where('id', '=', runId).executeTakeFirst()
    return !row || (row.status !== 'queued' && row.status !== 'running')
  }

  async cancelRequested(runId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('runs')
      .select(['cancel_requested'])
      .where('id', '=', runId)
      .executeTakeFirst()
    return row?.cancel_requested ?? true
  }

  /** When the run was accepted: deliveries to an external agent are retried for a day from then. */
  async acceptedAt(runId: string): Promise<Date> {
    const row = await this.db
      .selectFrom('runs')
      .select(sql<Date>`created_at`.as('created_at'))
      .where('id', '=', runId)
      .executeTakeFirstOrThrow()
    return row.created_at
  }
}
