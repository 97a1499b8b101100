import { sql } from 'kysely'
import { noMetrics, type Metrics } from '../metrics.ts'
import type { Db } from '../store/database.ts'
import type { RunStatus, StepStatus, TimelineKind } from '../store/schema.ts'
import type { Summary } from '../tools/define.ts'
import type { Attempt, RunError, StepRow } from './runs.ts'
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

/** How long an external agent may hold a delivered run before it is failed as timed out (docs/agents.md). */
export const EXTERNAL_RUN_DEADLINE_MS = 24 * 60 * 60 * 1000

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value))

/**
 * The writes a worker makes to a run and its timeline. A step's result is stored the moment it
 * completes, so a resumed run skips it; every write that ends or hands back the run requires the
 * lease, so a worker that lost its run to another process cannot overwrite what that one does.
 */
export class RunState {
  constructor(private readonly db: Db, private readonly metrics: Metrics = noMetrics) {}

  async steps(runId: string): Promise<StepRow[]> {
    return this.db.selectFrom('run_steps').selectAll().where('run_id', '=', runId).orderBy('seq').execute()
  }

  async begin(runId: string, step: StepStart, attempts: Attempt[] = []): Promise<void> {
    await this.db.insertInto('run_steps').values({
      run_id: runId, seq: step.seq, key: step.key, kind: step.kind, tool_id: step.toolId ?? null, integration_id: step.integrationId ?? null,
      input: json(step.input), status: 'running', attempts: JSON.stringify(attempts),
    }).onConflict((oc) => oc.columns(['run_id', 'seq']).doUpdateSet({ input: json(step.input), status: 'running', attempts: JSON.stringify(attempts) })).execute()
  }

  /** A timeline entry that ended without a call (skipped, or failed before it), written once. */
  async record(runId: string, step: StepStart, end: StepEnd): Promise<void> {
    const row = {
      run_id: runId, seq: step.seq, key: step.key, kind: step.kind, tool_id: step.toolId ?? null, integration_id: step.integrationId ?? null,
      input: json(step.input), status: end.status, output: json(end.output), summary: json(end.summary ?? null), error: json(end.error ?? null),
      attempts: '[]', finished_at: new Date(),
    }
    const { run_id: _run, seq: _seq, ...update } = row
    await this.db.insertInto('run_steps').values(row).onConflict((oc) => oc.columns(['run_id', 'seq']).doUpdateSet(update)).execute()
  }

  /**
   * A new timeline entry at the end, answering its place. Entries an external agent's concurrent
   * tool calls add take their places one at a time, under the run's row lock: reading the last place
   * and taking the next without it let simultaneous calls collide, and the losers were refused.
   */
  async append(runId: string, step: Omit<StepStart, 'seq' | 'key'>, key: (seq: number) => string): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await trx.selectFrom('runs').select('id').where('id', '=', runId).forUpdate().executeTakeFirst()
      const last = await trx.selectFrom('run_steps').select((eb) => eb.fn.max('seq').as('max')).where('run_id', '=', runId).executeTakeFirst()
      const seq = last?.max === null || last?.max === undefined ? 0 : Number(last.max) + 1
      await trx.insertInto('run_steps').values({
        run_id: runId, seq, key: key(seq), kind: step.kind, tool_id: step.toolId ?? null, integration_id: step.integrationId ?? null,
        input: json(step.input), status: 'running', attempts: '[]',
      }).execute()
      return seq
    })
  }

  /** The attempts of an entry still in progress; one that ended meanwhile (its run did) keeps its end. */
  async attempts(runId: string, seq: number, attempts: Attempt[]): Promise<void> {
    await this.db.updateTable('run_steps').set({ attempts: JSON.stringify(attempts) }).where('run_id', '=', runId).where('seq', '=', seq).where('status', '=', 'running').execute()
  }

  async end(runId: string, seq: number, end: StepEnd, attempts?: Attempt[]): Promise<void> {
    await this.db.updateTable('run_steps').set({
      status: end.status, output: json(end.output), summary: json(end.summary ?? null), error: json(end.error ?? null), finished_at: new Date(),
      ...(attempts ? { attempts: JSON.stringify(attempts) } : {}),
    }).where('run_id', '=', runId).where('seq', '=', seq).execute()
  }

  /** Ends the run; false when the lease was lost (another worker owns the run now). */
  async finish(runId: string, lease: Lease, status: Extract<RunStatus, 'succeeded' | 'failed' | 'cancelled'>, outcome: { result?: unknown; error?: RunError | null }): Promise<boolean> {
    const done = await this.db.updateTable('runs').set({
      status, result: json(outcome.result), error: json(outcome.error ?? null), finished_at: new Date(),
      lease_holder: null, lease_expires_at: null, token_hash: null, token_sealed: null,
    }).where('id', '=', runId).where('lease_holder', '=', lease.holder).where('status', '=', 'running').executeTakeFirst()
    const ended = done.numUpdatedRows > 0n
    if (ended) this.metrics.runFinished(status)
    return ended
  }

  /**
   * Back to the queue until `at` (a long retry wait, a delivery's next attempt): the worker is free
   * meanwhile. False when the run is no longer this worker's: an external agent reported it finished
   * while its delivery was in flight, or another worker took it over.
   */
  async later(runId: string, lease: Lease, at: Date): Promise<boolean> {
    const moved = await this.db.updateTable('runs').set({ status: 'queued', available_at: at, lease_holder: null, lease_expires_at: null })
      .where('id', '=', runId).where('lease_holder', '=', lease.holder).where('status', '=', 'running').executeTakeFirst()
    return moved.numUpdatedRows > 0n
  }

  /**
   * Running, but held by nobody: an external agent has it and will report back with its token. Not
   * when a cancel was asked for meanwhile: a run nobody holds would never see that request, so the
   * caller ends it instead (false).
   */
  async handOver(runId: string, lease: Lease): Promise<boolean> {
    // available_at, unused while running, holds the deadline by which the agent must report (the worker's sweep fails it after).
    const handed = await this.db.updateTable('runs').set({ lease_holder: null, lease_expires_at: null, available_at: new Date(Date.now() + EXTERNAL_RUN_DEADLINE_MS) })
      .where('id', '=', runId).where('lease_holder', '=', lease.holder).where('status', '=', 'running').where('cancel_requested', '=', false).executeTakeFirst()
    return handed.numUpdatedRows > 0n
  }

  /** Whether the run has ended (by its worker, a cancel, or an external agent's report). */
  async finished(runId: string): Promise<boolean> {
    const row = await this.db.selectFrom('runs').select('status').where('id', '=', runId).executeTakeFirst()
    return !row || (row.status !== 'queued' && row.status !== 'running')
  }

  async cancelRequested(runId: string): Promise<boolean> {
    const row = await this.db.selectFrom('runs').select(['cancel_requested']).where('id', '=', runId).executeTakeFirst()
    return row?.cancel_requested ?? true
  }

  /** When the run was accepted: deliveries to an external agent are retried for a day from then. */
  async acceptedAt(runId: string): Promise<Date> {
    const row = await this.db.selectFrom('runs').select(sql<Date>`created_at`.as('created_at')).where('id', '=', runId).executeTakeFirstOrThrow()
    return row.created_at
  }
}
