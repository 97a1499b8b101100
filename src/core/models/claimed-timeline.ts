import {
  entryValues,
  type EndStatus,
  type PendingEnd,
  type RunState,
  type Settled,
  type StepEnd,
  type StepStart,
} from '../agents/run-state.ts'
import type { RunError } from '../agents/runs.ts'
import type { Attempt, RunRow, StepRow } from '../agents/runs.ts'
import type { Lease } from '../agents/worker.ts'

/**
 * A model run's timeline as one claim holds it (docs/model-agents.md, "The run"). It is read from
 * the store once, when the claim starts, and then kept from what the claim's own writes wrote, with
 * the database's stamps each write answers: every write to the timeline of a run in hand is fenced
 * by its claim (run-state.ts), so nothing else writes it meanwhile, and the transcript rebuilt from
 * these rows is the one a resume would read. Reading the whole timeline again before every call cost
 * a query per call for rows this claim had just written itself.
 *
 * A call is begun only while nobody has asked to cancel the run, in the same fenced write: a person
 * who cancels stops the next call without the run reading its row before every call.
 *
 * An entry's end is not written on its own: it goes with the claim's next write, the next entry's
 * begin or the run's end, in the same fenced statement (one statement where there were two, five
 * fewer a run of three model calls and two tool calls). Nothing the run does between an end and that
 * write is seen outside it, so a crash in between loses only what a crash a moment earlier would
 * have: a model answer not yet stored is asked again, as it would have been; no tool call goes out
 * and no approval is opened before the answer asking for it is stored with it. Any other write
 * (an attempt's retry, an approval, parking the run) stores the held ends first (flush).
 */
export class ClaimedTimeline {
  private readonly rows = new Map<number, StepRow>()
  /** A begin was refused because a person asked to cancel the run: the run ends cancelled. */
  cancelled = false
  /**
   * The run's state as its first execution made it, stored with the first entry rather than in a
   * statement of its own (runner.ts): until then the run has done nothing a resume would not do
   * again the same way.
   */
  private unsavedState: unknown
  /** Ends kept here (and in `rows`) but not yet stored: they go with the next write. */
  private readonly pendingEnds = new Map<number, PendingEnd>()
  /**
   * Entries that ended without a call (an unknown tool, a denied call), kept here (and in `rows`)
   * and stored whole with the next write: stored begun, they would look like a call in flight to a
   * resume until their end was.
   */
  private settled: Settled[] = []

  private constructor(
    private readonly state: RunState,
    private readonly runId: string,
    private readonly lease: Lease,
  ) {}

  /** A first execution has nothing stored yet; a resumed one reads what its earlier executions wrote. */
  static async open(state: RunState, run: RunRow, lease: Lease): Promise<ClaimedTimeline> {
    const timeline = new ClaimedTimeline(state, run.id, lease)
    if (run.executions > 1) timeline.keep(await state.steps(run.id))
    return timeline
  }

  /** The entries in timeline order. */
  entries(): StepRow[] {
    return [...this.rows.values()].sort((a, b) => a.seq - b.seq)
  }

  entry(seq: number): StepRow | undefined {
    return this.rows.get(seq)
  }

  /** Stores `value` as the run's state with the next begin. */
  saveStateWithNextBegin(value: unknown): void {
    this.unsavedState = value
  }

  /**
   * Stores the entry as begun, with the ends held back so far. False when the claim lost the run, or
   * a cancel was asked for (then `cancelled` is set, and the held ends go with the run's end).
   */
  async begin(step: StepStart, attempts: Attempt[] = []): Promise<boolean> {
    // Taken now: reads begun together must not each carry them.
    const endings = this.takeEnds()
    const settled = this.settled.splice(0)
    const stored = await this.state.begin(this.runId, this.lease, step, attempts, settled, {
      unlessCancelled: true,
      ...(this.unsavedState === undefined ? {} : { modelState: this.unsavedState }),
      endings,
    })
    if (!stored) {
      for (const e of endings) if (!this.pendingEnds.has(e.seq)) this.pendingEnds.set(e.seq, e)
      this.settled.unshift(...settled)
      if (await this.state.cancelRequested(this.runId)) this.cancelled = true
      return false
    }
    this.unsavedState = undefined
    // The settled entries and the ends are here already (settle, end); the new entry as written.
    this.rows.set(step.seq, { ...this.rowOf(step, null), attempts: attempts as never })
    for (const { seq, started_at, finished_at } of stored) {
      const row = this.rows.get(seq)
      if (row) this.rows.set(seq, { ...row, started_at, finished_at })
    }
    return true
  }

  async attempts(seq: number, attempts: Attempt[]): Promise<boolean> {
    if (!(await this.flush())) return false
    return this.keep(await this.state.attempts(this.runId, seq, attempts, this.lease))
  }

  /**
   * The entry's end, kept here at once and stored with the claim's next write. True: whether the
   * claim still holds the run is known at that write.
   */
  end(seq: number, end: StepEnd, attempts?: Attempt[]): boolean {
    const row = this.rows.get(seq)
    if (!row) throw new Error(`the timeline has no entry ${seq} to end`)
    this.pendingEnds.set(seq, { seq, end, ...(attempts ? { attempts } : {}) })
    this.rows.set(seq, {
      ...row,
      status: end.status,
      output: (this.state.keep(end.output) ?? null) as never,
      summary: (end.summary ?? null) as never,
      error: (end.error ?? null) as never,
      attempts: (attempts ?? row.attempts) as never,
      finished_at: new Date(),
    })
    return true
  }

  /** An entry that ended without a call: kept here, stored whole with the next write. */
  settle(step: StepStart, end: StepEnd): true {
    this.settled.push({ step, end })
    this.rows.set(step.seq, this.rowOf(step, end))
    return true
  }

  /** An entry as the store keeps it (RunState.begin), running when it has no end. */
  private rowOf(step: StepStart, end: StepEnd | null): StepRow {
    return {
      ...entryValues(this.runId, step, end, this.state.keep),
      attempts: [],
      started_at: new Date(),
      finished_at: end ? new Date() : null,
    } as StepRow
  }

  /**
   * Stores what was held back, on its own, before a write that cannot carry it (an attempt's
   * retry, an approval, parking the run); false when the claim lost the run.
   */
  async flush(): Promise<boolean> {
    for (const { step, end } of this.settled.splice(0)) {
      const begun = await this.state.begin(this.runId, this.lease, step)
      if (!begun || !this.keep(await this.state.end(this.runId, step.seq, end, [], this.lease))) return false
    }
    for (const { seq, end, attempts } of this.takeEnds())
      if (!this.keep(await this.state.end(this.runId, seq, end, attempts, this.lease))) return false
    return true
  }

  /** Ends the run, with what was held back, in one statement; false when the claim lost the run. */
  async finish(
    status: EndStatus,
    outcome: { result?: unknown; error?: RunError; modelState?: unknown },
  ): Promise<boolean> {
    return this.state.finish(this.runId, this.lease, status, outcome, this.settled.splice(0), this.takeEnds())
  }

  private takeEnds(): PendingEnd[] {
    const endings = [...this.pendingEnds.values()]
    this.pendingEnds.clear()
    return endings
  }

  private keep(stored: StepRow | StepRow[] | null): boolean {
    if (!stored) return false
    for (const row of Array.isArray(stored) ? stored : [stored]) this.rows.set(row.seq, row)
    return true
  }
}
