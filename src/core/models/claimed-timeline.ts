import type { RunState, StepEnd, StepStart } from '../agents/run-state.ts'
import type { Attempt, RunRow, StepRow } from '../agents/runs.ts'
import type { Lease } from '../agents/worker.ts'

/**
 * A model run's timeline as one claim holds it (docs/model-agents.md, "The run"). It is read from
 * the store once, when the claim starts, and then kept from the entries each of the claim's own
 * writes returns as stored: every write to the timeline of a run in hand is fenced by its claim
 * (run-state.ts), so nothing else writes it meanwhile, and the transcript rebuilt from these rows is
 * the one a resume would read. Reading the whole timeline again before every call cost a query per
 * call for rows this claim had just written itself.
 *
 * A call is begun only while nobody has asked to cancel the run, in the same fenced write: a person
 * who cancels stops the next call without the run reading its row before every call.
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

  /** False when the claim lost the run, or a cancel was asked for (then `cancelled` is set). */
  async begin(step: StepStart, attempts: Attempt[] = []): Promise<boolean> {
    const stored = await this.state.begin(this.runId, this.lease, step, attempts, [], {
      unlessCancelled: true,
      ...(this.unsavedState === undefined ? {} : { modelState: this.unsavedState }),
    })
    if (stored) this.unsavedState = undefined
    if (!stored) {
      if (await this.state.cancelRequested(this.runId)) this.cancelled = true
      return false
    }
    return this.keep(stored)
  }

  async attempts(seq: number, attempts: Attempt[]): Promise<boolean> {
    return this.keep(await this.state.attempts(this.runId, seq, attempts, this.lease))
  }

  async end(seq: number, end: StepEnd, attempts?: Attempt[]): Promise<boolean> {
    return this.keep(await this.state.end(this.runId, seq, end, attempts, this.lease))
  }

  private keep(stored: StepRow | StepRow[] | null): boolean {
    if (!stored) return false
    for (const row of Array.isArray(stored) ? stored : [stored]) this.rows.set(row.seq, row)
    return true
  }
}
