import type { Selectable } from 'kysely'
import type { User } from '../access/users.ts'
import type { Sealer } from '../connections/crypto.ts'
import type { Integrations } from '../connections/integrations.ts'
import { AppError, invalidInput, notFound } from '../errors.ts'
import { newId, randomToken, sha256 } from '../ids.ts'
import type { Db } from '../store/database.ts'
import { GroupCommit } from '../store/group-commit.ts'
import type { RunStartedBy, RunStatus, RunsTable, RunStepsTable } from '../store/schema.ts'
import type { ToolRegistry } from '../tools/catalog.ts'
import type { Summary } from '../tools/define.ts'
import { parseOrThrow } from '../validation.ts'
import { afterPosition, createdMicros, CursorField, decodeCursor, LimitField, pageOf } from '../paging.ts'
import { z } from 'zod'
import type { Agents } from './agents.ts'
import { approvalNotes, standingNotes, type ApprovalNote } from './approval-note.ts'
import { inputProblems } from './definition.ts'
import { cutParts } from './stored-value.ts'
import type { QueueCap } from './queue-cap.ts'
import type { RunError } from './run-error.ts'

export type RunRow = Selectable<RunsTable>
export type StepRow = Selectable<RunStepsTable>

export interface Attempt {
  at: string
  /** `running` only while the call is in flight: a resumed run finds it and knows the call may have happened. */
  outcome: 'running' | 'succeeded' | 'failed'
  error?: string
  status?: number
  duration_ms?: number
  /** Set on a failed attempt that will be tried again after this wait. */
  retry_in_ms?: number
}

export type { RunError }

export interface TimelineEntry {
  seq: number
  key: string
  kind: StepRow['kind']
  tool_id: string | null
  tool_title: string | null
  integration_id: string | null
  integration_name: string | null
  status: StepRow['status']
  input: unknown
  output: unknown
  /** Which of input and output the store keeps cut, with a marker where it was cut (stored-value.ts). */
  cut: Array<'input' | 'output'>
  summary: Summary | null
  error: RunError | null
  attempts: Attempt[]
  started_at: Date
  finished_at: Date | null
  duration_ms: number | null
  /** A model's tool call that waited for a person: who decided, when, and what the model asked for. */
  approval?: ApprovalNote
}

export interface RunView {
  id: string
  agent_id: string
  agent_name: string
  agent_version: number
  status: RunStatus
  started_by: RunStartedBy
  subscription_id: string | null
  trigger_id: string | null
  test: boolean
  rerun_of: string | null
  inputs: Record<string, unknown>
  event: unknown
  result: unknown
  error: RunError | null
  created_at: Date
  started_at: Date | null
  finished_at: Date | null
  duration_ms: number | null
  timeline?: TimelineEntry[]
}

export interface NewRun {
  userId: string
  agentId: string
  agentVersion: number
  startedBy: RunStartedBy
  inputs: Record<string, unknown>
  subscriptionId?: string | null
  eventId?: string | null
  event?: unknown
  test?: boolean
  rerunOf?: string | null
  /** A run whose inputs could not be made (a mapping that fails) is recorded as failed at once: nothing is lost silently. */
  failed?: RunError
}

const RUN_STATUSES = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'waiting_for_approval',
  'budget_exhausted',
  'escalated',
] as const
/** When a person or client refused for a full queue may try again: runs start by the second. */
const QUEUE_FULL_RETRY_S = 10

const ListFilter = z.object({
  agent_id: z.string().optional(),
  subscription_id: z.string().optional(),
  trigger_id: z.string().optional(),
  status: z.enum(RUN_STATUSES, { error: `choose one of ${RUN_STATUSES.join(', ')}` }).optional(),
  since: z.iso
    .datetime({ offset: true, error: 'give an ISO 8601 time, for example 2026-11-23T10:00:00Z' })
    .optional(),
  until: z.iso
    .datetime({ offset: true, error: 'give an ISO 8601 time, for example 2026-11-23T10:00:00Z' })
    .optional(),
  limit: LimitField,
  cursor: CursorField,
})

// Strict, like every other body: a mistyped field (`results`, `errors`) would otherwise be dropped
// without a word and the run finish without what the agent meant to report (issue 22).
const Completion = z.strictObject({
  status: z.enum(['succeeded', 'failed'], { error: 'say succeeded or failed' }),
  result: z.unknown().optional(),
  error: z.strictObject({ message: z.string().max(4000, 'at most 4,000 characters') }).optional(),
})

/** A new run's row: queued, or failed already when it could not start (`failed`). */
function runValues(run: NewRun) {
  const failed = run.failed
  return {
    id: newId('run'),
    user_id: run.userId,
    agent_id: run.agentId,
    agent_version: run.agentVersion,
    started_by: run.startedBy,
    subscription_id: run.subscriptionId ?? null,
    event_id: run.eventId ?? null,
    event: run.event === undefined ? null : JSON.stringify(run.event),
    test: run.test ?? false,
    rerun_of: run.rerunOf ?? null,
    inputs: JSON.stringify(run.inputs),
    status: failed ? ('failed' as const) : ('queued' as const),
    error: failed ? JSON.stringify(failed) : null,
    finished_at: failed ? new Date() : null,
  }
}

/** Runs as records: made, listed, read with their timeline, cancelled, rerun, completed by an external agent. */
export class Runs {
  /** Called when a run becomes ready, so a worker in this process picks it up at once; `owner` is whose, when one owner's. */
  onReady: (owner?: string) => void = () => {}
  /** The per-plan cap on waiting runs (set by the composition root). */
  queueCap: QueueCap | undefined

  constructor(
    private readonly db: Db,
    private readonly agents: Agents,
    private readonly registry: ToolRegistry,
    private readonly integrations: Integrations,
    private readonly sealer: Sealer,
  ) {}

  /** Inserts a run, inside the caller's transaction when it has one. */
  async insert(trx: Db, run: NewRun): Promise<string> {
    const values = runValues(run)
    await trx.insertInto('runs').values(values).execute()
    return values.id
  }

  /**
   * Runs started by hand at the same moment, in one statement (a group commit, fair between owners):
   * a burst of starts made one insert each, and every insert on runs also keeps the owner's count of
   * waiting runs (migration 0021), whose row each of them waited for in turn. The rows come back in
   * the order given (the ids are made here, so each row is found by its own).
   */
  private readonly starts = new GroupCommit<NewRun, RunRow>(async (runs) => {
    const values = runs.map(runValues)
    const rows = await this.db.insertInto('runs').values(values).returningAll().execute()
    const byId = new Map(rows.map((r) => [r.id, r]))
    return values.map((v) => byId.get(v.id)!)
  })

  /** Starts the agent's current version by hand (a person in the web app, or an API call). */
  async start(
    user: User,
    agentId: string,
    rawInputs: unknown,
    startedBy: RunStartedBy,
    extra: Partial<NewRun> = {},
  ): Promise<RunView> {
    const inputs = parseOrThrow(
      z
        .record(z.string(), z.unknown(), { error: 'give the inputs as an object of names and values' })
        .default({}),
      rawInputs,
    )
    const agent = await this.agents.get(user.id, agentId)
    const problems = inputProblems(agent.inputs, inputs)
    if (problems.length) throw invalidInput(problems)
    const full = await this.queueCap?.refusal(user)
    if (full) throw new AppError('rate_limited', full.message, { retryAfterSeconds: QUEUE_FULL_RETRY_S })
    const row = await this.starts.submit(
      { userId: user.id, agentId, agentVersion: agent.version, startedBy, inputs, ...extra },
      user.id,
    )
    this.onReady(user.id)
    // The run as it was stored, not read back: nothing of it has run yet (a worker may be claiming
    // it meanwhile; GET /v1/runs/{id} follows it). Reading it back, timeline and all, was most of the
    // queries a burst of starts made.
    const [view] = await this.views(user.id, [row], new Map([[agentId, agent.name]]))
    return { ...view!, timeline: [] }
  }

  async rerun(user: User, runId: string): Promise<RunView> {
    const run = await this.row(user.id, runId)
    // The agent's current version, with the same inputs and event: a rerun is for after a fix.
    return this.start(user, run.agent_id, run.inputs, 'rerun', {
      rerunOf: run.id,
      subscriptionId: run.subscription_id,
      event: run.event ?? undefined,
      test: run.test,
    })
  }

  async cancel(userId: string, runId: string): Promise<RunView> {
    const run = await this.row(userId, runId)
    if (run.status !== 'queued' && run.status !== 'running' && run.status !== 'waiting_for_approval')
      throw new AppError(
        'conflict',
        `the run has already ${run.status === 'cancelled' ? 'been cancelled' : run.status}`,
      )
    // The request first, then the run that no worker holds stops at once; one a worker is executing
    // stops before its next step. In this order a worker that claims the run, or hands it to an
    // external agent, between the two writes still sees the request (RunState.handOver).
    await this.db
      .updateTable('runs')
      .set({ cancel_requested: true })
      .where('id', '=', runId)
      .where('status', 'in', ['queued', 'running', 'waiting_for_approval'])
      .execute()
    const error = { code: 'cancelled', message: 'cancelled by a person' }
    const stopped = await this.db
      .updateTable('runs')
      .set({
        status: 'cancelled',
        finished_at: new Date(),
        token_hash: null,
        token_sealed: null,
        error: JSON.stringify(error),
      })
      .where('id', '=', runId)
      .where('user_id', '=', userId)
      .where('status', 'in', ['queued', 'running', 'waiting_for_approval'])
      .where('lease_holder', 'is', null)
      .executeTakeFirst()
    if (stopped.numUpdatedRows > 0n) await this.closeWaitingEntries(runId, error)
    return this.get(userId, runId)
  }

  /**
   * A run that ended (cancelled, or reported finished by its agent) while it waited in the queue for
   * a step's or a delivery's next attempt: that entry ends with the run, without the retry its last
   * attempt announced.
   */
  private async closeWaitingEntries(
    runId: string,
    error: RunError,
    kinds: Array<StepRow['kind']> = ['step', 'delivery'],
  ): Promise<void> {
    const waiting = await this.db
      .selectFrom('run_steps')
      .select(['seq', 'attempts'])
      .where('run_id', '=', runId)
      .where('status', '=', 'running')
      .where('kind', 'in', kinds)
      .execute()
    for (const entry of waiting) {
      const attempts = (entry.attempts as Attempt[]).map(({ retry_in_ms: _wait, ...attempt }) => attempt)
      await this.db
        .updateTable('run_steps')
        .set({
          status: 'failed',
          error: JSON.stringify(error),
          attempts: JSON.stringify(attempts),
          finished_at: new Date(),
        })
        .where('run_id', '=', runId)
        .where('seq', '=', entry.seq)
        .where('status', '=', 'running')
        .execute()
    }
  }

  async list(userId: string, rawFilter: unknown): Promise<{ runs: RunView[]; next_cursor: string | null }> {
    const filter = parseOrThrow(ListFilter, rawFilter)
    let query = this.db.selectFrom('runs').selectAll('runs').where('runs.user_id', '=', userId)
    if (filter.agent_id) query = query.where('runs.agent_id', '=', filter.agent_id)
    if (filter.subscription_id) query = query.where('runs.subscription_id', '=', filter.subscription_id)
    if (filter.trigger_id)
      query = query.where(
        'runs.subscription_id',
        'in',
        this.db
          .selectFrom('subscriptions')
          .select('id')
          .where('user_id', '=', userId)
          .where('trigger_id', '=', filter.trigger_id),
      )
    if (filter.status) query = query.where('runs.status', '=', filter.status)
    if (filter.since) query = query.where('runs.created_at', '>=', new Date(filter.since))
    if (filter.until) query = query.where('runs.created_at', '<', new Date(filter.until))
    const scope = `runs:${userId}`
    if (filter.cursor)
      query = query.where(afterPosition('runs', decodeCursor(filter.cursor, scope, { legacy: true }), 'desc'))
    const rows = await query
      .select(createdMicros('runs').as('created_us'))
      .orderBy('runs.created_at', 'desc')
      .orderBy('runs.id', 'desc')
      .limit(filter.limit + 1)
      .execute()
    const { page, next_cursor } = pageOf(rows, filter.limit, scope)
    return { runs: await this.views(userId, page), next_cursor }
  }

  async get(userId: string, runId: string): Promise<RunView> {
    const [view] = await this.views(userId, [await this.row(userId, runId)])
    const steps = await this.db
      .selectFrom('run_steps')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('seq')
      .execute()
    const names = await this.integrations.accountNames(
      userId,
      steps.flatMap((s) => (s.integration_id ? [s.integration_id] : [])),
    )
    view.timeline = steps.map((s) => this.entry(s, names))
    if (steps.some((s) => s.kind === 'tool_call')) {
      const requests = await this.db
        .selectFrom('approvals')
        .select(['id', 'status', 'calls', 'decisions', 'expires_at'])
        .where('run_id', '=', runId)
        .execute()
      const notes = approvalNotes(requests)
      const standing = standingNotes(view.timeline, notes)
      for (const e of view.timeline) {
        const note = e.kind === 'tool_call' ? (notes.get(e.key) ?? standing.get(e.key)) : undefined
        if (note) e.approval = note
      }
    }
    return view
  }

  /** The run a token belongs to, while the run is not finished; undefined otherwise. */
  async byToken(token: string): Promise<{ runId: string; userId: string } | undefined> {
    const row = await this.db
      .selectFrom('runs')
      .select(['id', 'user_id'])
      .where('token_hash', '=', sha256(token))
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst()
    return row ? { runId: row.id, userId: row.user_id } : undefined
  }

  /** The token an external agent calls with, made once per run and sealed so a retried delivery carries the same one. */
  async tokenFor(runId: string): Promise<string> {
    const row = await this.db
      .selectFrom('runs')
      .select('token_sealed')
      .where('id', '=', runId)
      .executeTakeFirstOrThrow()
    if (row.token_sealed) return this.sealer.open(row.token_sealed)
    const token = `syr_${randomToken(24)}`
    await this.db
      .updateTable('runs')
      .set({ token_hash: sha256(token), token_sealed: this.sealer.seal(token) })
      .where('id', '=', runId)
      .execute()
    return token
  }

  /** An external agent reports its run finished, with its run token. */
  async complete(runId: string, tokenRunId: string, raw: unknown): Promise<RunView> {
    if (runId !== tokenRunId) throw notFound('run')
    const body = parseOrThrow(Completion, raw)
    const row = await this.db
      .selectFrom('runs')
      .select('user_id')
      .where('id', '=', runId)
      .executeTakeFirstOrThrow()
    const error =
      body.status === 'failed'
        ? { code: 'agent_failed', message: body.error?.message ?? 'the agent reported a failure' }
        : null
    const done = await this.db
      .updateTable('runs')
      .set({
        status: body.status,
        result: body.result === undefined ? null : JSON.stringify(body.result),
        error: error ? JSON.stringify(error) : null,
        finished_at: new Date(),
        token_hash: null,
        token_sealed: null,
        lease_holder: null,
        lease_expires_at: null,
      })
      .where('id', '=', runId)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst()
    if (!done.numUpdatedRows) throw new AppError('conflict', 'the run has already finished')
    // Reported back while its delivery waited for a retry: the agent had the run, so none will come.
    await this.closeWaitingEntries(
      runId,
      {
        code: 'delivery_failed',
        message:
          'the agent reported the run finished before a delivery was answered with success; it is not delivered again',
      },
      ['delivery'],
    )
    return this.get(row.user_id, runId)
  }

  async row(userId: string, runId: string): Promise<RunRow> {
    const row = await this.db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', runId)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (!row) throw notFound('run')
    return row
  }

  /** The rows as the API shows them; `known` holds agents' names the caller has already read. */
  private async views(
    userId: string,
    rows: RunRow[],
    known: ReadonlyMap<string, string> = new Map(),
  ): Promise<RunView[]> {
    if (rows.length === 0) return []
    const agentIds = [...new Set(rows.map((r) => r.agent_id))].filter((id) => !known.has(id))
    const subIds = [...new Set(rows.flatMap((r) => (r.subscription_id ? [r.subscription_id] : [])))]
    const agents = new Map(
      agentIds.length
        ? (
            await this.db
              .selectFrom('agents')
              .select(['id', 'name'])
              .where('user_id', '=', userId)
              .where('id', 'in', agentIds)
              .execute()
          ).map((a) => [a.id, a.name])
        : [],
    )
    for (const [id, name] of known) agents.set(id, name)
    const triggers = subIds.length
      ? new Map(
          (
            await this.db
              .selectFrom('subscriptions')
              .select(['id', 'trigger_id'])
              .where('id', 'in', subIds)
              .execute()
          ).map((s) => [s.id, s.trigger_id]),
        )
      : new Map<string, string>()
    return rows.map((r) => ({
      id: r.id,
      agent_id: r.agent_id,
      agent_name: agents.get(r.agent_id) ?? r.agent_id,
      agent_version: r.agent_version,
      status: r.status,
      started_by: r.started_by,
      subscription_id: r.subscription_id,
      trigger_id: r.subscription_id ? (triggers.get(r.subscription_id) ?? null) : null,
      test: r.test,
      rerun_of: r.rerun_of,
      inputs: r.inputs as Record<string, unknown>,
      event: r.event,
      result: r.result,
      error: r.error as RunError | null,
      created_at: r.created_at,
      started_at: r.started_at,
      finished_at: r.finished_at,
      duration_ms: r.started_at && r.finished_at ? r.finished_at.getTime() - r.started_at.getTime() : null,
    }))
  }

  private entry(s: StepRow, names: Map<string, string>): TimelineEntry {
    return {
      seq: s.seq,
      key: s.key,
      kind: s.kind,
      tool_id: s.tool_id,
      tool_title: s.tool_id ? (this.registry.get(s.tool_id)?.tool.title ?? s.tool_id) : null,
      integration_id: s.integration_id,
      integration_name: s.integration_id ? (names.get(s.integration_id) ?? null) : null,
      status: s.status,
      input: s.input,
      output: s.output,
      cut: cutParts(s.input, s.output),
      summary: s.summary as Summary | null,
      error: s.error as RunError | null,
      attempts: s.attempts as Attempt[],
      started_at: s.started_at,
      finished_at: s.finished_at,
      duration_ms: s.finished_at ? s.finished_at.getTime() - s.started_at.getTime() : null,
    }
  }
}
