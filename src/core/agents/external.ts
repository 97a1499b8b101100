import { Webhook } from 'standardwebhooks'
import { fetch } from 'undici'
import { AddressRefused, reachable, type AgentNetworks } from '../http/public-only.ts'
import type { AgentDefinition } from './definition.ts'
import type { RunState } from './run-state.ts'
import type { Attempt, RunRow, Runs } from './runs.ts'
import type { Lease } from './worker.ts'

/** Deliveries to an external agent are retried for a day from the run's acceptance (issue 10, "External"). */
export const DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000
/**
 * Waits after each failed delivery: Standard Webhooks' suggested schedule (immediately, 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 10 h), which reaches a day in eight attempts.
 */
export const DELIVERY_BACKOFF_MS: readonly number[] = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
]
const DELIVERY_TIMEOUT_MS = 15_000
const DELIVERY_SEQ = 0
const MAX_RESPONSE_NOTE = 200
const CANCELLED = { code: 'cancelled', message: 'cancelled by a person' }

/**
 * Delivers a run to an agent that lives elsewhere, as a POST signed the Standard Webhooks way
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The body carries the run token with
 * which the agent calls tool steps (they appear on the run's timeline) and reports the run finished.
 * Every attempt is on the timeline; the `webhook-id` is the run's id on every attempt, so the agent
 * can recognise a retry of a delivery it already has.
 */
export class ExternalDelivery {
  constructor(
    private readonly runs: Runs,
    private readonly state: RunState,
    private readonly signingSecret: (agentId: string) => Promise<string | null>,
    private readonly publicUrl: string,
    private readonly networks: AgentNetworks = 'any',
    private readonly backoffMs: readonly number[] = DELIVERY_BACKOFF_MS,
  ) {}

  async execute(run: RunRow, def: AgentDefinition, lease: Lease): Promise<void> {
    const secret = await this.signingSecret(run.agent_id)
    if (!def.external || !secret) {
      await this.state.finish(run.id, lease, 'failed', {
        error: { code: 'invalid_input', message: 'the agent has no address or signing secret to deliver to' },
      })
      return
    }
    const previous = (await this.state.steps(run.id)).find((s) => s.kind === 'delivery')
    const attempts = (previous?.attempts as Attempt[] | undefined) ?? []
    // A claim that lost the run (fenced, run-state.ts) delivers nothing: the claim that has it does.
    if (
      !previous &&
      !(await this.state.begin(run.id, lease, {
        seq: DELIVERY_SEQ,
        key: 'delivery',
        kind: 'delivery',
        input: { url: def.external.url },
      }))
    )
      return
    if (!lease.held()) return

    const token = await this.runs.tokenFor(run.id)
    const body = JSON.stringify({
      type: 'run.started',
      run: {
        id: run.id,
        agent_id: run.agent_id,
        agent_version: run.agent_version,
        started_by: run.started_by,
        subscription_id: run.subscription_id,
        test: run.test,
        inputs: run.inputs,
        event: run.event,
      },
      run_token: token,
      api: {
        base_url: this.publicUrl,
        tools: `${this.publicUrl}/v1/tools/{tool_id}/run`,
        complete: `${this.publicUrl}/v1/runs/${run.id}/complete`,
      },
    })
    const started = Date.now()
    const attempt: Attempt = { at: new Date(started).toISOString(), outcome: 'failed' }
    let refused = false
    try {
      const headers = new Webhook(secret).sign(run.id, new Date(started), body)
      const response = await fetch(def.external.url, {
        ...reachable(def.external.url, this.networks),
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': run.id,
          'webhook-timestamp': String(Math.floor(started / 1000)),
          'webhook-signature': headers,
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      })
      attempt.status = response.status
      if (response.ok) attempt.outcome = 'succeeded'
      else
        attempt.error =
          `the agent answered ${response.status} ${(await response.text().catch(() => '')).slice(0, MAX_RESPONSE_NOTE)}`.trim()
      await response.body?.cancel().catch(() => undefined)
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err
      refused = cause instanceof AddressRefused
      attempt.error = refused
        ? (cause as Error).message
        : `could not reach the agent: ${cause instanceof Error ? cause.message || cause.name : String(cause)}`
    }
    attempt.duration_ms = Date.now() - started
    attempts.push(attempt)

    if (attempt.outcome === 'succeeded') {
      await this.state.end(run.id, DELIVERY_SEQ, { status: 'succeeded' }, attempts)
      // Cancelled while the delivery was in flight: the run ends here, and with it the agent's token.
      if (!(await this.state.handOver(run.id, lease)) && (await this.state.cancelRequested(run.id))) {
        await this.state.finish(run.id, lease, 'cancelled', { error: CANCELLED })
      }
      return
    }
    const failures = attempts.filter((a) => a.outcome === 'failed').length
    const waitMs = this.backoffMs[failures - 1]
    const acceptedAt = await this.state.acceptedAt(run.id)
    // An address outside the allowed networks is refused on every attempt: the run fails now.
    if (refused) {
      await this.state.end(
        run.id,
        DELIVERY_SEQ,
        { status: 'failed', error: { code: 'forbidden', message: attempt.error! } },
        attempts,
      )
      await this.state.finish(run.id, lease, 'failed', {
        error: { code: 'forbidden', message: attempt.error! },
      })
      return
    }
    if (waitMs === undefined || Date.now() + waitMs - acceptedAt.getTime() > DELIVERY_WINDOW_MS) {
      await this.state.end(
        run.id,
        DELIVERY_SEQ,
        { status: 'failed', error: { code: 'delivery_failed', message: attempt.error ?? 'delivery failed' } },
        attempts,
      )
      await this.state.finish(run.id, lease, 'failed', {
        error: {
          code: 'delivery_failed',
          message: `the agent could not be reached for a day: ${attempt.error}`,
        },
      })
      return
    }
    attempt.retry_in_ms = waitMs
    await this.state.attempts(run.id, DELIVERY_SEQ, attempts)
    if (await this.state.later(run.id, lease, new Date(Date.now() + waitMs))) return
    // The agent reported the run finished before it answered (or the run was cancelled): it had the
    // delivery, and no retry will come, so the timeline must not promise one.
    if (await this.state.finished(run.id)) {
      delete attempt.retry_in_ms
      await this.state.end(
        run.id,
        DELIVERY_SEQ,
        {
          status: 'failed',
          error: {
            code: 'delivery_failed',
            message: `${attempt.error ?? 'delivery failed'}; the run had already ended, so it is not delivered again`,
          },
        },
        attempts,
      )
    }
  }
}
