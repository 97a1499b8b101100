import { Ajv2020 } from 'ajv/dist/2020.js'
import type { User } from '../access/users.ts'
import { ESCALATE_TOOL, type AgentDefinition } from '../agents/definition.ts'
import type { EndStatus, RunState } from '../agents/run-state.ts'
import type { Attempt, RunError, RunRow, StepRow } from '../agents/runs.ts'
import {
  MAX_INLINE_WAIT_MS,
  MAX_STEP_ATTEMPTS,
  retryable,
  retryDelayMs,
  STEP_BACKOFF_MS,
  waitInHand,
} from '../agents/step-retry.ts'
import { errorOf } from '../agents/step-runner.ts'
import type { Lease } from '../agents/worker.ts'
import type { Integrations } from '../connections/integrations.ts'
import { AppError } from '../errors.ts'
import { renderValue } from '../expressions/templates.ts'
import type { ToolRegistry } from '../tools/catalog.ts'
import type { ToolExecutor } from '../tools/executor.ts'
import type { Approvals, Decision } from './approvals.ts'
import { BUDGET_FIELDS, budgetOf, type Budget, type BudgetField } from './budget.ts'
import { ClaimedTimeline } from './claimed-timeline.ts'
import type { ModelClient, ModelClientFactory, ModelToolCall } from './client.ts'
import type { ModelConnections } from './connections.ts'
import type { PlanCeilings } from './plan-ceilings.ts'
import { ModelOfRun } from './run-client.ts'
import { priceVersionLabel, type PriceBook } from './price-book.ts'
import {
  ACCOUNT_FIELD,
  boundTools,
  callInWords,
  offeredTools,
  type BoundTool,
  type OfferedAccounts,
} from './toolset.ts'
import {
  assertAnswered,
  readTranscript,
  type ReadTranscript,
  type StoredAnswer,
  type StoredUsage,
} from './transcript.ts'

/** How many account names a model is offered per platform, read on every model call. */
const MAX_NAMED_ACCOUNTS = 50

const ajv = new Ajv2020({ strict: false, validateFormats: false })

/** The same call with the same arguments and the same result this many times is a loop. */
export const LOOP_REPEATS = 3
/** How long an approval waits for a person before it counts as denied (docs/model-agents.md). */
export const APPROVAL_TTL_MS = 24 * 60 * 60 * 1000

const INTERRUPTED: RunError = {
  code: 'interrupted',
  message:
    'the service stopped while this write was in flight; it is not repeated, because the platform may already have done it',
}
const CANCELLED: RunError = { code: 'cancelled', message: 'cancelled by a person' }

/** What a model run keeps on its row: fixed at its start, or added by people while it runs. */
export interface ModelRunState {
  /** The approval rule of each tool, fixed when the run started (annotations may change later). */
  approvals: Record<string, 'required' | 'none'>
  /** Tools a person approved for the rest of the run. */
  approved_for_run: string[]
  /** What people added to the budget after it ran out. */
  extensions: Partial<Budget>
  /** What the run has spent, as of its last model or tool call. */
  usage?: StoredUsage
  budget?: Budget
  /** The admin's price version in force when the run started (price-book.ts): its calls cost that. */
  price_version?: number
}

type Outcome = 'continue' | 'stop'

/** What one execution of a model run works with, made once when it starts (execute()). */
interface ModelRunContext {
  run: RunRow
  def: AgentDefinition
  user: User
  lease: Lease
  tools: Map<string, BoundTool>
  runState: ModelRunState
  budget: Budget
  /** The instructions, rendered over the run's inputs and event. */
  system: string
  /** The first user message: the run's inputs and event as JSON. */
  firstMessage: string
  timeline: ClaimedTimeline
  model: ModelOfRun
}

/**
 * A model agent's run (docs/model-agents.md, "The run"): Switchyard's own loop, one timeline entry
 * per model call and per tool call, on the same claim, fencing and tool road as a step agent's run.
 * Every pass rebuilds the transcript from the stored timeline, so a crash, a restart or an approval
 * resumes exactly where the run was, and the budget it spent is the budget it keeps.
 */
export class ModelRunner {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly executor: ToolExecutor,
    private readonly state: RunState,
    private readonly connections: ModelConnections,
    private readonly integrations: Integrations,
    private readonly approvals: Approvals,
    private readonly clientOf: ModelClientFactory,
    private readonly prices: PriceBook,
    private readonly ceilings: PlanCeilings,
    private readonly backoffMs: readonly number[] = STEP_BACKOFF_MS,
  ) {}

  async execute(run: RunRow, def: AgentDefinition, user: User, lease: Lease): Promise<void> {
    const tools = boundTools(def, this.registry)
    let runState = run.model_state as ModelRunState | null
    const timeline = await ClaimedTimeline.open(this.state, run, lease)
    if (!runState) {
      runState = {
        approvals: Object.fromEntries([...tools.values()].map((t) => [t.name, t.approval])),
        approved_for_run: [],
        extensions: {},
        price_version: await this.prices.current(),
      }
      // Stored with the first model call's entry, not in a statement of its own: nothing happens
      // before that call that a resume would not do again, and a run that ends before it stores its
      // state with its end (end()).
      timeline.saveStateWithNextBegin(runState)
    }
    const scope = { inputs: run.inputs, event: run.event, run: { id: run.id, agent_id: run.agent_id } }
    let system: string
    try {
      system = String(
        await renderValue(def.instructions ?? '', scope, 'instructions', { owner: run.user_id }),
      )
    } catch (err) {
      await this.end(timeline, runState, 'failed', {
        error: { code: 'invalid_input', message: errorOf(err).message },
      })
      return
    }
    const firstMessage = JSON.stringify({ inputs: run.inputs, ...(run.event ? { event: run.event } : {}) })
    const budget = this.limits(def, runState, await this.ceilings.of(user.plan))
    const model = new ModelOfRun(this.connections, this.clientOf, run.user_id, def.model!.connection)
    try {
      await this.loop({
        run,
        def,
        user,
        lease,
        tools,
        runState,
        budget,
        system,
        firstMessage,
        timeline,
        model,
      })
    } finally {
      // An execution that stops without ending the run (its claim looked lost, the service is
      // stopping) still stores what its timeline held back, fenced: a model answer kept only in
      // memory would be asked for again by the resume.
      await timeline.flush().catch(() => false)
    }
  }

  private async loop(ctx: ModelRunContext): Promise<void> {
    const { lease, runState, firstMessage, timeline } = ctx
    for (;;) {
      if (!lease.held()) return
      const read = readTranscript(timeline.entries(), firstMessage)
      runState.usage = read.usage
      const last = read.last?.answer
      let outcome: Outcome
      const unanswered = last?.calls.some(
        (c) => read.results.get(c.id)?.status !== 'succeeded' && read.results.get(c.id)?.status !== 'failed',
      )
      if (last && unanswered && !read.inFlight) outcome = await this.toolCalls(ctx, read)
      else if (last && !read.inFlight && last.calls.length === 0 && !last.correction)
        outcome = await this.finalAnswer(ctx, read)
      else outcome = await this.modelCall(ctx, read)
      if (outcome === 'stop') {
        // A call not begun because a person asked to cancel (claimed-timeline.ts): the run ends so.
        if (timeline.cancelled) await this.end(timeline, runState, 'cancelled', { error: CANCELLED })
        return
      }
    }
  }

  /**
   * The budget of this run: the agent's, plus extensions, never past the owner's plan's ceiling as it
   * holds now (an admin may have lowered it since the agent was saved).
   */
  private limits(def: AgentDefinition, runState: ModelRunState, ceiling: Budget): Budget {
    const base = budgetOf(def.budget, ceiling)
    return Object.fromEntries(
      BUDGET_FIELDS.map((f) => [f, Math.min(base[f] + (runState.extensions[f] ?? 0), ceiling[f])]),
    ) as Budget
  }

  /** The run's end, with the timeline's entries held back (claimed-timeline.ts) in the same write. */
  private async end(
    timeline: ClaimedTimeline,
    runState: ModelRunState,
    status: EndStatus,
    outcome: { result?: unknown; error?: RunError },
  ): Promise<void> {
    await timeline.finish(status, { ...outcome, modelState: runState })
  }

  private async exhausted(
    run: RunRow,
    timeline: ClaimedTimeline,
    runState: ModelRunState,
    field: BudgetField,
    budget: Budget,
  ): Promise<Outcome> {
    const words: Record<BudgetField, string> = {
      model_calls: `${budget.model_calls} model calls`,
      tool_calls: `${budget.tool_calls} tool calls`,
      tokens: `${budget.tokens} tokens`,
      cost_usd: `$${budget.cost_usd}`,
      wall_clock_s: `${budget.wall_clock_s} s of working time`,
      tool_errors: `${budget.tool_errors} tool errors the model may repair`,
    }
    runState.budget = budget
    await this.end(timeline, runState, 'budget_exhausted', {
      error: {
        code: 'budget_exhausted',
        message: `the run used its budget of ${words[field]}; its transcript is kept: extend the budget to continue (POST /v1/runs/${run.id}/extend)`,
        budget: field,
      },
    })
    return 'stop'
  }

  private overBudget(usage: StoredUsage, budget: Budget): BudgetField | null {
    if (usage.tool_errors > budget.tool_errors) return 'tool_errors'
    if (usage.model_calls >= budget.model_calls) return 'model_calls'
    if (usage.tokens >= budget.tokens) return 'tokens'
    if (usage.cost_usd >= budget.cost_usd) return 'cost_usd'
    if (usage.wall_clock_s >= budget.wall_clock_s) return 'wall_clock_s'
    return null
  }

  private async modelCall(ctx: ModelRunContext, read: ReadTranscript): Promise<Outcome> {
    const { run, def, user, lease, tools, runState, budget, system, timeline, model: modelOfRun } = ctx
    // The same call, arguments and result again and again: the model is going round in circles.
    const counts = new Map<string, number>()
    for (const s of read.signatures) counts.set(s, (counts.get(s) ?? 0) + 1)
    const looping = [...counts.entries()].find(([, n]) => n >= LOOP_REPEATS)
    if (looping) {
      const [name] = JSON.parse(looping[0]) as [string]
      await this.end(timeline, runState, 'failed', {
        error: {
          code: 'loop_detected',
          message: `the model called ${name} ${LOOP_REPEATS} times with the same arguments and got the same result; the run stops rather than pay for more of the same`,
        },
      })
      return 'stop'
    }
    const over = this.overBudget(read.usage, budget)
    if (over) return this.exhausted(run, timeline, runState, over, budget)
    assertAnswered(read.messages)

    const model = def.model!
    const seq = read.inFlight?.seq ?? read.nextSeq
    const attempts = ((read.inFlight?.attempts as Attempt[] | undefined) ?? []).map((a) =>
      a.outcome === 'running'
        ? {
            ...a,
            outcome: 'failed' as const,
            error: 'interrupted: the service stopped before the answer was stored, so it is asked again',
          }
        : a,
    )
    const accounts = await this.accountNames(user, tools)
    const offered = offeredTools(tools, accounts)
    const input = { model: model.name, connection: model.connection, tools: offered.map((t) => t.name) }
    const step = { seq, key: `model#${read.usage.model_calls + 1}`, kind: 'model_call' as const, input }
    let client: ModelClient
    try {
      client = await modelOfRun.client()
    } catch (err) {
      const error = errorOf(err)
      if (read.inFlight) timeline.end(seq, { status: 'failed', error }, attempts)
      else timeline.settle(step, { status: 'failed', error })
      await this.end(timeline, runState, 'failed', { error })
      return 'stop'
    }
    // The entry is stored with its first attempt running, in one write: a crash during the call is
    // seen on resume, and the call is asked again there.
    let started = Date.now()
    attempts.push({ at: new Date(started).toISOString(), outcome: 'running' })
    const begun = read.inFlight
      ? await timeline.attempts(seq, attempts)
      : await timeline.begin(step, attempts)
    if (!begun || !lease.held()) return 'stop'
    for (;;) {
      try {
        // The wait on the provider is out of the worker's slot (worker.ts, "Slots and waits"): the
        // run stays claimed, and the answer is stored under that claim before anything else.
        const answer = await lease.offSlot(() =>
          client.call({
            model: model.name,
            system,
            messages: read.messages,
            tools: offered,
            ...(Object.keys(def.output).length ? { outputSchema: def.output } : {}),
          }),
        )
        const latency = Date.now() - started
        attempts[attempts.length - 1] = { ...attempts.at(-1)!, outcome: 'succeeded', duration_ms: latency }
        // A run from before an admin could version prices counts with the shipped table (version 0).
        const priceVersion = runState.price_version ?? 0
        const stored: StoredAnswer = {
          ...answer,
          cost_usd: await this.prices.costAt(priceVersion, model.name, answer.usage),
          latency_ms: latency,
          price_table: priceVersionLabel(priceVersion),
        }
        const summary = {
          text: answer.calls.length
            ? `${model.name} asked for ${answer.calls.map((c) => c.name).join(', ')}`
            : `${model.name} answered (${answer.finishReason})`,
        }
        // Stored with the next write (claimed-timeline.ts): the next call's begin, or the run's end.
        timeline.end(seq, { status: 'succeeded', output: stored, summary }, attempts)
        return 'continue'
      } catch (err) {
        const failed = attempts.filter((a) => a.outcome === 'failed').length + 1
        // A model call is a read: asked again after a rate limit or a provider's failure.
        const again = retryable('read', err) && failed < MAX_STEP_ATTEMPTS
        const waitMs = again ? retryDelayMs(failed, err, this.backoffMs) : undefined
        attempts[attempts.length - 1] = {
          ...attempts.at(-1)!,
          outcome: 'failed',
          error: errorOf(err).message,
          duration_ms: Date.now() - started,
          ...(err instanceof AppError && err.extras.upstreamStatus
            ? { status: err.extras.upstreamStatus }
            : {}),
          ...(waitMs !== undefined ? { retry_in_ms: waitMs } : {}),
        }
        if (waitMs === undefined) {
          const error = errorOf(err)
          timeline.end(seq, { status: 'failed', error }, attempts)
          await this.end(timeline, runState, 'failed', {
            error: { ...error, message: `the model call failed: ${error.message}` },
          })
          return 'stop'
        }
        if (!(await timeline.attempts(seq, attempts))) return 'stop'
        const retryAt = new Date(Date.now() + waitMs)
        if (!(await waitInHand(waitMs, lease.stopping))) {
          await this.state.later(run.id, lease, retryAt)
          return 'stop'
        }
        if (!lease.held()) return 'stop'
        started = Date.now()
        attempts.push({ at: new Date(started).toISOString(), outcome: 'running' })
        if (!(await timeline.attempts(seq, attempts)) || !lease.held()) return 'stop'
      }
    }
  }

  /** The owner's account names on each platform a tool may choose among. */
  private async accountNames(
    user: User,
    tools: Map<string, BoundTool>,
  ): Promise<Map<string, OfferedAccounts>> {
    const platforms = new Set(
      [...tools.values()].filter((t) => !t.definition.integration).map((t) => t.registered.platform.id),
    )
    const names = new Map<string, OfferedAccounts>()
    // A bounded read on every model call: a user with 1,000 integrations is offered the first ones by
    // name, and told that any other account name is taken too (issue 22, §7).
    for (const p of platforms) {
      const { accounts, more } = await this.integrations.offered(user.id, p, MAX_NAMED_ACCOUNTS)
      const active = accounts.filter((i) => i.status === 'active').map((i) => i.account_name)
      names.set(p, { names: active, more })
    }
    return names
  }

  /** An answer without tool calls: the run's final answer, if it is one. */
  private async finalAnswer(ctx: ModelRunContext, read: ReadTranscript): Promise<Outcome> {
    const { run, def, runState, budget, timeline } = ctx
    const { seq, answer } = read.last!
    let correction: string | null = null
    let result: unknown = answer.text
    if (answer.finishReason === 'length')
      correction = 'Your answer was cut off at the length limit. Answer again, shorter.'
    else if (Object.keys(def.output).length) {
      try {
        result = JSON.parse(answer.text)
        const validate = ajv.compile(def.output)
        if (!validate(result))
          correction = `Your answer does not match the required output schema: ${ajv.errorsText(validate.errors)}. Answer again with JSON that matches it.`
      } catch {
        correction =
          'Your answer is not JSON. Answer again with only a JSON document that matches the required output schema.'
      }
    } else if (!answer.text.trim()) correction = 'Your answer is empty. Give your final answer.'
    if (!correction) {
      await this.end(timeline, runState, 'succeeded', { result })
      return 'stop'
    }
    // Not an answer to end on: said back to the model, within the same repair budget as tool errors.
    if (read.usage.tool_errors + 1 > budget.tool_errors)
      return this.exhausted(run, timeline, runState, 'tool_errors', budget)
    const entry = timeline.entry(seq)!
    timeline.end(
      seq,
      { status: 'succeeded', output: { ...answer, correction }, summary: entry.summary as never },
      entry.attempts as Attempt[],
    )
    return 'continue'
  }

  /** The tool calls of the last answer that have no result yet. */
  private async toolCalls(ctx: ModelRunContext, read: ReadTranscript): Promise<Outcome> {
    const { run, user, lease, tools, runState, budget, timeline } = ctx
    const { seq: modelSeq, answer } = read.last!
    let nextSeq = read.nextSeq
    const usage = { ...read.usage }
    const pending = answer.calls.filter((c) => {
      const e = read.results.get(c.id)
      return !e || e.status === 'running'
    })
    const escalate = pending.find((c) => c.name === ESCALATE_TOOL)
    if (escalate) {
      const reason = (escalate.input as { reason?: unknown } | null)?.reason
      await this.end(timeline, runState, 'escalated', {
        result: { reason: typeof reason === 'string' ? reason : 'the model asked for a person' },
        error: {
          code: 'escalated',
          message: `the model handed the run to a person: ${typeof reason === 'string' ? reason : 'no reason given'}`,
        },
      })
      return 'stop'
    }
    const needApproval: ModelToolCall[] = []
    const reads: Array<() => Promise<boolean>> = []
    const writes: Array<() => Promise<boolean>> = []
    for (const call of pending) {
      const existing = read.results.get(call.id)
      const bound = tools.get(call.name)
      if (existing) {
        // Caught in flight by a crash: a read is read again in its entry; a write is not repeated.
        if (bound?.registered.tool.effect === 'read')
          reads.push(() =>
            this.runTool(run, user, lease, timeline, existing.seq, call, bound, call.input, existing),
          )
        else timeline.end(existing.seq, { status: 'failed', error: INTERRUPTED }, markInterrupted(existing))
        continue
      }
      const fail = (error: RunError) =>
        timeline.settle(
          {
            seq: nextSeq++,
            key: call.id,
            kind: 'tool_call',
            toolId: bound?.registered.tool.id ?? null,
            input: call.input,
          },
          { status: 'failed', error },
        )
      if (!bound) {
        const known = [...tools.keys(), ESCALATE_TOOL].join(', ')
        fail({ code: 'not_found', message: `there is no tool ${call.name}; the tools are ${known}` })
        continue
      }
      if (call.invalid) {
        fail({ code: 'invalid_input', message: `${call.name} was not run: ${call.invalid}` })
        continue
      }
      if (runState.approvals[call.name] === 'required' && !runState.approved_for_run.includes(call.name)) {
        needApproval.push(call)
        continue
      }
      const seq = nextSeq++
      const task = () => this.runTool(run, user, lease, timeline, seq, call, bound, call.input)
      // Reads may run together; writes go one at a time, in the order the model asked.
      ;(bound.registered.tool.effect === 'read' ? reads : writes).push(task)
    }
    for (const batch of [reads, writes]) {
      if (batch.length && usage.tool_calls + batch.length > budget.tool_calls)
        return this.exhausted(run, timeline, runState, 'tool_calls', budget)
      usage.tool_calls += batch.length
      if (batch === reads) {
        if ((await Promise.all(batch.map((t) => t()))).includes(false)) return 'stop'
      } else for (const t of batch) if (!(await t())) return 'stop'
    }
    if (needApproval.length === 0) return 'continue'
    return this.approvalsFor(
      run,
      user,
      lease,
      timeline,
      tools,
      runState,
      modelSeq,
      needApproval,
      () => nextSeq++,
      budget,
      usage,
    )
  }

  /** Calls that need a person: one request per answer, a decision per call (docs/model-agents.md, "Approvals"). */
  private async approvalsFor(
    run: RunRow,
    user: User,
    lease: Lease,
    timeline: ClaimedTimeline,
    tools: Map<string, BoundTool>,
    runState: ModelRunState,
    modelSeq: number,
    calls: ModelToolCall[],
    takeSeq: () => number,
    budget: Budget,
    usage: StoredUsage,
  ): Promise<Outcome> {
    // An approval is a write the timeline's next write cannot carry: what it holds back goes first.
    if (!(await timeline.flush())) return 'stop'
    const request = await this.approvals.forAnswer(run.id, modelSeq)
    if (!request) {
      const expiresAt = new Date(Date.now() + APPROVAL_TTL_MS)
      const accountOf = async (b: BoundTool, input: unknown) => {
        const ref = b.definition.integration ?? (input as Record<string, unknown> | null)?.[ACCOUNT_FIELD]
        if (typeof ref !== 'string') return null
        return (
          (await this.integrations.resolve(user.id, b.registered.platform.id, ref).catch(() => null))
            ?.account_name ?? ref
        )
      }
      const described = await Promise.all(
        calls.map(async (c) => {
          const b = tools.get(c.name)!
          return {
            tool_call_id: c.id,
            name: c.name,
            tool: b.registered.tool.id,
            effect: b.registered.tool.effect,
            input: c.input,
            words: callInWords(b, c.input, await accountOf(b, c.input)),
          }
        }),
      )
      await this.approvals.open(run.id, run.user_id, modelSeq, described, expiresAt)
      return this.wait(run, lease, timeline, runState, expiresAt)
    }
    if (request.status === 'pending' && request.expires_at.getTime() > Date.now())
      return this.wait(run, lease, timeline, runState, request.expires_at)
    if (request.status === 'pending') await this.approvals.expire(request.id)
    const decisions = request.decisions
    const runnable: Array<() => Promise<boolean>> = []
    for (const call of calls) {
      const decision: Decision | undefined = decisions[call.id]
      const seq = takeSeq()
      const bound = tools.get(call.name)!
      if (!decision || decision.decision === 'deny') {
        const error: RunError = decision
          ? {
              code: 'denied',
              message: `a person denied this call${decision.reason ? `: ${decision.reason}` : ''}`,
            }
          : {
              code: 'expired',
              message: 'nobody approved this call in time, so it was not run (treated as denied)',
            }
        timeline.settle(
          { seq, key: call.id, kind: 'tool_call', toolId: bound.registered.tool.id, input: call.input },
          { status: 'failed', error },
        )
        continue
      }
      if (decision.decision === 'approve_for_run' && !runState.approved_for_run.includes(call.name)) {
        runState.approved_for_run.push(call.name)
        if (!(await timeline.flush()) || !(await this.state.modelState(run.id, lease, runState)))
          return 'stop'
      }
      runnable.push(() =>
        this.runTool(run, user, lease, timeline, seq, call, bound, decision.input ?? call.input),
      )
    }
    if (runnable.length && usage.tool_calls + runnable.length > budget.tool_calls)
      return this.exhausted(run, timeline, runState, 'tool_calls', budget)
    for (const t of runnable) if (!(await t())) return 'stop'
    return 'continue'
  }

  private async wait(
    run: RunRow,
    lease: Lease,
    timeline: ClaimedTimeline,
    runState: ModelRunState,
    until: Date,
  ): Promise<Outcome> {
    if (!(await timeline.flush())) return 'stop'
    await this.state.modelState(run.id, lease, runState)
    if (!(await this.state.park(run.id, lease, until)) && (await this.state.cancelRequested(run.id)))
      await this.end(timeline, runState, 'cancelled', { error: CANCELLED })
    return 'stop'
  }

  /** One tool call on the road every tool step takes (tools/executor.ts), as its own timeline entry. */
  private async runTool(
    run: RunRow,
    user: User,
    lease: Lease,
    timeline: ClaimedTimeline,
    seq: number,
    call: ModelToolCall,
    bound: BoundTool,
    rawInput: unknown,
    existing?: StepRow,
  ): Promise<boolean> {
    const { tool } = bound.registered
    const args = rawInput && typeof rawInput === 'object' ? { ...(rawInput as Record<string, unknown>) } : {}
    const account = bound.definition.integration ?? args[ACCOUNT_FIELD]
    if (!bound.definition.integration) delete args[ACCOUNT_FIELD]
    const attempts: Attempt[] = existing
      ? markInterrupted(existing, 'interrupted: the service stopped during this read, so it is read again')
      : []
    let integrationId: string | null = null
    const base = { seq, key: call.id, kind: 'tool_call' as const, toolId: tool.id, input: rawInput }
    const failBeforeCall = (error: RunError) => timeline.settle(base, { status: 'failed', error })
    if (typeof account !== 'string' || !account)
      return failBeforeCall({
        code: 'invalid_input',
        message: `say which account to act on in ${ACCOUNT_FIELD}`,
      })
    try {
      integrationId = (await this.integrations.resolve(user.id, bound.registered.platform.id, account)).id
    } catch (err) {
      const error = errorOf(err)
      const message = `${error.message}; choose one of the accounts the tool's description lists`
      return failBeforeCall({ code: error.code, message })
    }
    // The entry is stored with its first attempt running, in one write, before the call goes out.
    let started = Date.now()
    attempts.push({ at: new Date(started).toISOString(), outcome: 'running' })
    if (!(await timeline.begin({ ...base, integrationId }, attempts)) || !lease.held()) return false
    for (;;) {
      try {
        // The wait on the platform is out of the worker's slot, as the model call's wait on the
        // provider is (worker.ts, "Slots and waits"): the run stays claimed, and the entry's end is
        // written under that claim. A step agent's steps keep their slots: their runs come in a
        // trigger's bursts, and out of their slots the worker would claim up to WAITS_PER_SLOT times
        // as many at once, each a call in flight at the platform; that is for a measurement to decide.
        const { output, summary } = await lease.offSlot(() =>
          this.executor.runAndSummarize(user, tool.id, integrationId, args, `run:${run.id}`),
        )
        attempts[attempts.length - 1] = {
          ...attempts.at(-1)!,
          outcome: 'succeeded',
          duration_ms: Date.now() - started,
        }
        timeline.end(seq, { status: 'succeeded', output, summary }, attempts)
        // A read's end goes with the next write; a write's is stored now, so a crash before that
        // write does not record a write that happened as interrupted.
        return tool.effect === 'read' || timeline.flush()
      } catch (err) {
        const failed = attempts.filter((a) => a.outcome === 'failed').length + 1
        const waitMs =
          retryable(tool.effect, err) && failed < MAX_STEP_ATTEMPTS
            ? retryDelayMs(failed, err, this.backoffMs)
            : undefined
        attempts[attempts.length - 1] = {
          ...attempts.at(-1)!,
          outcome: 'failed',
          error: errorOf(err).message,
          duration_ms: Date.now() - started,
          ...(waitMs !== undefined && waitMs <= MAX_INLINE_WAIT_MS ? { retry_in_ms: waitMs } : {}),
        }
        // A tool's failure is the model's to read and repair (within its repair budget), not the run's end.
        if (waitMs === undefined || waitMs > MAX_INLINE_WAIT_MS) {
          timeline.end(seq, { status: 'failed', error: errorOf(err) }, attempts)
          return tool.effect === 'read' || timeline.flush()
        }
        if (!(await timeline.attempts(seq, attempts))) return false
        await lease.offSlot(() => new Promise((resolve) => setTimeout(resolve, waitMs)))
        if (!lease.held()) return false
        started = Date.now()
        attempts.push({ at: new Date(started).toISOString(), outcome: 'running' })
        if (!(await timeline.attempts(seq, attempts)) || !lease.held()) return false
      }
    }
  }
}

function markInterrupted(entry: StepRow, why = INTERRUPTED.message): Attempt[] {
  return ((entry.attempts as Attempt[]) ?? []).map((a) =>
    a.outcome === 'running' ? { ...a, outcome: 'failed', error: why } : a,
  )
}
