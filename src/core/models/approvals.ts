import { z } from 'zod'
import type { User } from '../access/users.ts'
import type { AgentDefinition } from '../agents/definition.ts'
import { AppError, invalidInput, notFound, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { Db } from '../store/database.ts'
import type { ApprovalStatus } from '../store/schema.ts'
import type { ToolRegistry } from '../tools/catalog.ts'
import { parseOrThrow } from '../validation.ts'
import { toolNameOf } from './definition.ts'
import { ACCOUNT_FIELD } from './toolset.ts'

export interface PendingCall {
  tool_call_id: string
  /** What the model called it. */
  name: string
  /** The tool step. */
  tool: string
  effect: string
  input: unknown
  /** The call in words, for the person deciding. */
  words: string
}

export interface Decision {
  decision: 'approve' | 'approve_for_run' | 'deny'
  /** Inputs a person edited before approving, checked against the step's schema. */
  input?: unknown
  reason?: string
  /** The person who decided, with their name and email as they were then (the trace shows them). */
  by: string
  by_name?: string
  by_email?: string
  at: string
}

export interface ApprovalView {
  id: string
  run_id: string
  agent_id: string
  agent_name: string
  status: ApprovalStatus
  calls: PendingCall[]
  decisions: Record<string, Decision>
  created_at: Date
  expires_at: Date
  decided_at: Date | null
}

interface ApprovalRecord {
  id: string
  status: ApprovalStatus
  decisions: Record<string, Decision>
  expires_at: Date
}

const DecisionInput = z.strictObject({
  tool_call_id: z.string({ error: 'name the tool call (its tool_call_id)' }).min(1),
  decision: z.enum(['approve', 'approve_for_run', 'deny'], {
    error: 'choose approve, approve_for_run or deny',
  }),
  input: z
    .record(z.string(), z.unknown(), { error: 'give the edited input as an object of fields' })
    .optional(),
  reason: z.string().max(2000, 'at most 2,000 characters').optional(),
})

const DecideInput = z.strictObject({
  decisions: z
    .array(DecisionInput, { error: 'give the decisions as a list' })
    .min(1, 'decide at least one call'),
})

/**
 * Approval requests of model runs (docs/model-agents.md, "Approvals"): one per model answer whose
 * tool calls need a person, a decision per call. The server stores and checks every decision;
 * nothing a model or a client writes into a transcript approves anything. A request whose every
 * call is decided puts its run back in the queue, for any instance to resume.
 */
export class Approvals {
  /** The run went back to the queue: wake a worker. */
  onReady: () => void = () => {}
  /** A new request waits for a person (its run's owner): the approval webhooks tell outside systems. */
  onOpened: (approval: ApprovalView, ownerId: string) => void = () => {}

  constructor(
    private readonly db: Db,
    private readonly registry: ToolRegistry,
    private readonly definitionAt: (agentId: string, version: number) => Promise<AgentDefinition>,
  ) {}

  async forAnswer(runId: string, modelSeq: number): Promise<ApprovalRecord | undefined> {
    const row = await this.db
      .selectFrom('approvals')
      .select(['id', 'status', 'decisions', 'expires_at'])
      .where('run_id', '=', runId)
      .where('model_seq', '=', modelSeq)
      .executeTakeFirst()
    return row ? { ...row, decisions: row.decisions as Record<string, Decision> } : undefined
  }

  /** A new request; one already opened for this answer (by an execution that lost its claim) stands. */
  async open(
    runId: string,
    userId: string,
    modelSeq: number,
    calls: PendingCall[],
    expiresAt: Date,
  ): Promise<void> {
    const opened = await this.db
      .insertInto('approvals')
      .values({
        id: newId('apr'),
        run_id: runId,
        user_id: userId,
        model_seq: modelSeq,
        status: 'pending',
        calls: JSON.stringify(calls),
        expires_at: expiresAt,
      })
      .onConflict((oc) => oc.columns(['run_id', 'model_seq']).doNothing())
      .returning('id')
      .executeTakeFirst()
    // Told once, by the execution that opened it, not again by one that lost its claim and retried.
    if (opened) this.onOpened(await this.get(userId, opened.id), userId)
  }

  async expire(id: string): Promise<void> {
    await this.db
      .updateTable('approvals')
      .set({ status: 'expired' })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .execute()
  }

  async list(userId: string, status: ApprovalStatus | 'all' = 'pending'): Promise<ApprovalView[]> {
    let query = this.db
      .selectFrom('approvals')
      .innerJoin('runs', 'runs.id', 'approvals.run_id')
      .innerJoin('agents', 'agents.id', 'runs.agent_id')
      .selectAll('approvals')
      .select(['agents.id as agent_id', 'agents.name as agent_name', 'runs.status as run_status'])
      .where('approvals.user_id', '=', userId)
      .orderBy('approvals.created_at', 'desc')
      .limit(200)
    if (status !== 'all') query = query.where('approvals.status', '=', status)
    const rows = await query.execute()
    const views = rows.map((r) => this.view(r))
    return status === 'all' ? views : views.filter((v) => v.status === status)
  }

  async get(userId: string, id: string): Promise<ApprovalView> {
    const row = await this.db
      .selectFrom('approvals')
      .innerJoin('runs', 'runs.id', 'approvals.run_id')
      .innerJoin('agents', 'agents.id', 'runs.agent_id')
      .selectAll('approvals')
      .select(['agents.id as agent_id', 'agents.name as agent_name', 'runs.status as run_status'])
      .where('approvals.user_id', '=', userId)
      .where('approvals.id', '=', id)
      .executeTakeFirst()
    if (!row) throw notFound('approval')
    return this.view(row)
  }

  private view(r: any): ApprovalView {
    const expired = r.status === 'pending' && r.expires_at.getTime() <= Date.now()
    // A run cancelled (or ended) while it waited leaves its request open for nobody.
    const orphaned =
      r.status === 'pending' &&
      r.run_status !== 'waiting_for_approval' &&
      r.run_status !== 'queued' &&
      r.run_status !== 'running'
    return {
      id: r.id,
      run_id: r.run_id,
      agent_id: r.agent_id,
      agent_name: r.agent_name,
      status: orphaned ? 'cancelled' : expired ? 'expired' : r.status,
      calls: r.calls as PendingCall[],
      decisions: r.decisions as Record<string, Decision>,
      created_at: r.created_at,
      expires_at: r.expires_at,
      decided_at: r.decided_at,
    }
  }

  /**
   * Decides calls of a pending request. An edited input is checked against the step's schema as
   * the run will send it; a request whose last call is decided sends its run back to the queue.
   */
  async decide(user: User, id: string, raw: unknown): Promise<ApprovalView> {
    const { decisions } = parseOrThrow(DecideInput, raw)
    // Read before the transaction: the embedded store has one connection, which the transaction holds.
    const owner = await this.db
      .selectFrom('approvals')
      .innerJoin('runs', 'runs.id', 'approvals.run_id')
      .select(['runs.agent_id', 'runs.agent_version'])
      .where('approvals.id', '=', id)
      .where('approvals.user_id', '=', user.id)
      .executeTakeFirst()
    if (!owner) throw notFound('approval')
    const def = await this.definitionAt(owner.agent_id, owner.agent_version)
    const ready = await this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('approvals')
        .innerJoin('runs', 'runs.id', 'approvals.run_id')
        .select([
          'approvals.id',
          'approvals.status',
          'approvals.calls',
          'approvals.decisions',
          'approvals.expires_at',
          'approvals.run_id',
          'runs.status as run_status',
        ])
        .where('approvals.id', '=', id)
        .where('approvals.user_id', '=', user.id)
        .forUpdate()
        .executeTakeFirst()
      if (!row) throw notFound('approval')
      if (
        row.status !== 'pending' ||
        row.expires_at.getTime() <= Date.now() ||
        row.run_status !== 'waiting_for_approval'
      )
        throw new AppError(
          'conflict',
          row.status === 'pending' && row.expires_at.getTime() <= Date.now()
            ? 'the approval expired: its calls count as denied'
            : `the approval is ${row.status === 'pending' ? `no longer open (the run is ${row.run_status})` : row.status}`,
        )
      const calls = row.calls as PendingCall[]
      const stored = { ...(row.decisions as Record<string, Decision>) }
      const errors: FieldError[] = []
      for (const [i, d] of decisions.entries()) {
        const call = calls.find((c) => c.tool_call_id === d.tool_call_id)
        if (!call) {
          errors.push({
            field: `decisions[${i}].tool_call_id`,
            message: `the request has no call ${d.tool_call_id}; its calls are ${calls.map((c) => c.tool_call_id).join(', ')}`,
          })
          continue
        }
        if (stored[call.tool_call_id]) {
          errors.push({ field: `decisions[${i}].tool_call_id`, message: 'this call is already decided' })
          continue
        }
        if (d.input !== undefined && d.decision === 'deny')
          errors.push({
            field: `decisions[${i}].input`,
            message: 'an edited input goes with an approval, not a denial',
          })
        if (d.input !== undefined)
          errors.push(...this.checkInput(def, call, d.input, `decisions[${i}].input`))
        stored[call.tool_call_id] = {
          decision: d.decision,
          ...(d.input !== undefined ? { input: d.input } : {}),
          ...(d.reason ? { reason: d.reason } : {}),
          by: user.id,
          by_name: user.name,
          by_email: user.email,
          at: new Date().toISOString(),
        }
      }
      if (errors.length) throw invalidInput(errors)
      const complete = calls.every((c) => stored[c.tool_call_id])
      await trx
        .updateTable('approvals')
        .set({
          decisions: JSON.stringify(stored),
          ...(complete ? { status: 'decided' as const, decided_at: new Date() } : {}),
        })
        .where('id', '=', id)
        .execute()
      if (complete)
        await trx
          .updateTable('runs')
          .set({ status: 'queued', available_at: new Date() })
          .where('id', '=', row.run_id)
          .where('status', '=', 'waiting_for_approval')
          .execute()
      return complete
    })
    if (ready) this.onReady()
    return this.get(user.id, id)
  }

  /** An edited input is held to the step's own schema (plus the account, for a tool that chooses one). */
  private checkInput(def: AgentDefinition, call: PendingCall, input: unknown, field: string): FieldError[] {
    const t = def.tools.find((x) => toolNameOf(x) === call.name)
    const registered = this.registry.get(call.tool)
    if (!t || !registered) return [{ field, message: 'the tool is no longer part of the agent' }]
    const args = { ...(input as Record<string, unknown>) }
    const errors: FieldError[] = []
    if (!t.integration) {
      if (typeof args[ACCOUNT_FIELD] !== 'string' || !args[ACCOUNT_FIELD])
        errors.push({ field: `${field}.${ACCOUNT_FIELD}`, message: 'say which account to act on' })
      delete args[ACCOUNT_FIELD]
    }
    try {
      registered.parseInput(args)
    } catch (err) {
      if (!(err instanceof AppError)) throw err
      const fieldErrors = err.extras.errors ?? [{ field: '', message: err.message }]
      // The step's own errors name `input.<field>`, as for a tool run; here the edited input is `field`.
      errors.push(
        ...fieldErrors.map((e) => {
          const inner = e.field.replace(/^input(\.|$)/, '')
          return { field: inner ? `${field}.${inner}` : field, message: e.message }
        }),
      )
    }
    return errors
  }
}
