import type { User } from '../access/users.ts'
import { AppError } from '../errors.ts'
import {
  evaluateCondition,
  MAX_STEP_INPUT_CHARS,
  renderValue,
  TemplateError,
} from '../expressions/templates.ts'
import type { ToolRegistry } from '../tools/catalog.ts'
import type { ToolExecutor } from '../tools/executor.ts'
import type { AgentDefinition, StepDefinition } from './definition.ts'
import type { RunState, Settled } from './run-state.ts'
import type { Attempt, RunError, RunRow, StepRow } from './runs.ts'
import { waitInHand, MAX_STEP_ATTEMPTS, retryable, retryDelayMs, STEP_BACKOFF_MS } from './step-retry.ts'
import type { Lease } from './worker.ts'

/** What the expressions of a run see: `inputs`, earlier `steps.<key>.output`, the trigger's `event`, and the `run`. */
interface Scope extends Record<string, unknown> {
  inputs: Record<string, unknown>
  steps: Record<string, { output: unknown; status: string }>
  event: unknown
  run: { id: string; agent_id: string; agent_version: number }
}

const CANCELLED: RunError = { code: 'cancelled', message: 'cancelled by a person' }

const INTERRUPTED: RunError = {
  code: 'interrupted',
  message:
    'the service stopped while this write was in flight; it is not repeated, because the platform may already have done it',
}

export function errorOf(err: unknown, step?: string): RunError {
  if (err instanceof AppError) return { code: err.code, message: err.message, ...(step ? { step } : {}) }
  return { code: 'internal', message: 'the step failed unexpectedly', ...(step ? { step } : {}) }
}

/**
 * Runs an agent's steps in order (docs/agents.md, "Steps"). A step whose result is stored is not run
 * again when the run resumes; a write caught in flight by a crash is never repeated, a read is.
 */
export class StepRunner {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly executor: ToolExecutor,
    private readonly state: RunState,
    private readonly backoffMs: readonly number[] = STEP_BACKOFF_MS,
  ) {}

  async execute(run: RunRow, def: AgentDefinition, user: User, lease: Lease): Promise<void> {
    // A first execution has nothing stored yet; a resumed one skips what its earlier executions finished.
    const stored = run.executions > 1 ? await this.state.steps(run.id) : []
    const done = new Map(stored.filter((s) => s.kind === 'step').map((s) => [s.seq, s]))
    const scope: Scope = {
      inputs: run.inputs as Record<string, unknown>,
      steps: {},
      event: run.event,
      run: { id: run.id, agent_id: run.agent_id, agent_version: run.agent_version },
    }
    // Entries that ended without a call, not yet written: they go with the next write (Settled).
    const settled: Settled[] = []
    const finish = (
      status: 'succeeded' | 'failed' | 'cancelled',
      outcome: { result?: unknown; error?: RunError },
    ) => this.state.finish(run.id, lease, status, outcome, settled.splice(0))
    for (const [seq, step] of def.steps.entries()) {
      if (!lease.held()) return
      // The claim read the run just now; before later steps, a person may have cancelled it since.
      if (seq > 0 && (await this.state.cancelRequested(run.id))) {
        await finish('cancelled', { error: CANCELLED })
        return
      }
      const outcome = await this.step(run, seq, step, scope, user, done.get(seq), lease, settled)
      if (outcome === 'later' || !lease.held()) return
      if (outcome === 'cancelled') {
        await finish('cancelled', { error: CANCELLED })
        return
      }
      if (outcome.status === 'failed' && step.on_failure === 'stop') {
        await finish('failed', {
          error: {
            ...outcome.error!,
            message: `step ${step.key} failed: ${outcome.error!.message}`,
            step: step.key,
          },
        })
        return
      }
      scope.steps[step.key] = { output: outcome.output ?? null, status: outcome.status }
    }
    let result: unknown
    try {
      result = Object.keys(def.output).length
        ? await renderValue(def.output, scope, 'output', { owner: run.user_id })
        : lastOutput(scope)
    } catch (err) {
      await finish('failed', { error: errorOf(err) })
      return
    }
    await finish('succeeded', { result })
  }

  /** One step to its end; 'later' when it waits for a retry in the queue, 'cancelled' when a cancel came during a retry wait. */
  private async step(
    run: RunRow,
    seq: number,
    step: StepDefinition,
    scope: Scope,
    user: User,
    previous: StepRow | undefined,
    lease: Lease,
    settled: Settled[],
  ): Promise<
    { status: 'succeeded' | 'failed' | 'skipped'; output?: unknown; error?: RunError } | 'later' | 'cancelled'
  > {
    if (previous && previous.status !== 'running')
      return {
        status: previous.status,
        output: previous.output,
        error: previous.error as RunError | undefined,
      }
    const registered = this.registry.get(step.tool)
    const attempts: Attempt[] = (previous?.attempts as Attempt[] | undefined) ?? []
    const inFlight = attempts.at(-1)?.outcome === 'running'
    if (inFlight && registered?.tool.effect !== 'read') {
      attempts[attempts.length - 1] = { ...attempts.at(-1)!, outcome: 'failed', error: INTERRUPTED.message }
      if (!(await this.state.end(run.id, seq, { status: 'failed', error: INTERRUPTED }, attempts, lease)))
        return 'later'
      return { status: 'failed', error: INTERRUPTED }
    }
    if (inFlight)
      attempts[attempts.length - 1] = {
        ...attempts.at(-1)!,
        outcome: 'failed',
        error: 'interrupted: the service stopped during this read, so it is read again',
      }

    const base = {
      seq,
      key: step.key,
      kind: 'step' as const,
      toolId: step.tool,
      integrationId: step.integration,
    }
    try {
      if (
        step.condition?.trim() &&
        !(await evaluateCondition(step.condition, scope, `steps.${step.key}.condition`, {
          owner: run.user_id,
        }))
      ) {
        settled.push({ step: base, end: { status: 'skipped' } })
        return { status: 'skipped' }
      }
    } catch (err) {
      return failBeforeCall(settled, base, err)
    }
    let input: unknown
    try {
      input = await renderValue(step.input, scope, `steps.${step.key}.input`, {
        maxChars: MAX_STEP_INPUT_CHARS,
        owner: run.user_id,
      })
    } catch (err) {
      return failBeforeCall(settled, base, err)
    }
    if (!registered)
      return failBeforeCall(
        settled,
        { ...base, input },
        new AppError('not_found', `the tool step ${step.tool} no longer exists`),
      )
    // Every write below is fenced by the claim (run-state.ts): one refused means another execution
    // owns the run now, and this one stops before its call can go out a second time.
    if (!(await this.state.begin(run.id, lease, { ...base, input }, attempts, settled.splice(0))))
      return 'later'

    while (attempts.filter((a) => a.outcome === 'failed').length < MAX_STEP_ATTEMPTS) {
      const started = Date.now()
      attempts.push({ at: new Date(started).toISOString(), outcome: 'running' })
      if (!(await this.state.attempts(run.id, seq, attempts, lease)) || !lease.held()) return 'later'
      try {
        const { output, summary } = await this.executor.runAndSummarize(
          user,
          step.tool,
          step.integration,
          input,
          `run:${run.id}`,
        )
        attempts[attempts.length - 1] = {
          ...attempts.at(-1)!,
          outcome: 'succeeded',
          duration_ms: Date.now() - started,
        }
        if (!(await this.state.end(run.id, seq, { status: 'succeeded', output, summary }, attempts, lease)))
          return 'later'
        return { status: 'succeeded', output }
      } catch (err) {
        const failedCount = attempts.filter((a) => a.outcome === 'failed').length + 1
        const again = retryable(registered.tool.effect, err) && failedCount < MAX_STEP_ATTEMPTS
        const waitMs = again ? retryDelayMs(failedCount, err, this.backoffMs) : undefined
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
          if (!(await this.state.end(run.id, seq, { status: 'failed', error }, attempts, lease)))
            return 'later'
          return { status: 'failed', error }
        }
        if (!(await this.state.attempts(run.id, seq, attempts, lease))) return 'later'
        const retryAt = new Date(Date.now() + waitMs)
        if (!(await waitInHand(waitMs, lease.stopping))) {
          await this.state.later(run.id, lease, retryAt)
          return 'later'
        }
        if (!lease.held()) return 'later'
        // A cancel asked for during the wait stops the run before the next attempt: a person who
        // cancelled does not expect the write to go out a few seconds later.
        if (await this.state.cancelRequested(run.id)) {
          attempts[attempts.length - 1] = { ...attempts.at(-1)!, retry_in_ms: undefined } // no retry follows after all
          if (!(await this.state.end(run.id, seq, { status: 'failed', error: CANCELLED }, attempts, lease)))
            return 'later'
          return 'cancelled'
        }
      }
    }
    const error: RunError = { code: 'upstream_error', message: `gave up after ${MAX_STEP_ATTEMPTS} attempts` }
    if (!(await this.state.end(run.id, seq, { status: 'failed', error }, attempts, lease))) return 'later'
    return { status: 'failed', error }
  }
}

/** A template or condition that fails is the step's failure, on the timeline like any other. */
function failBeforeCall(
  settled: Settled[],
  step: Settled['step'],
  err: unknown,
): { status: 'failed'; error: RunError } {
  const error = err instanceof TemplateError ? { code: 'invalid_input', message: err.message } : errorOf(err)
  settled.push({ step, end: { status: 'failed', error } })
  return { status: 'failed', error }
}

/** Without an output mapping, a run's result is its last step's output. */
function lastOutput(scope: Scope): unknown {
  const outputs = Object.values(scope.steps).filter((s) => s.status === 'succeeded')
  return outputs.at(-1)?.output ?? null
}
