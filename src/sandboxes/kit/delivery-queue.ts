import { AttemptTimers, postDelivery, settledWithin, trimSettled, type PostOutcome } from './outbox.ts'

/**
 * The one outgoing-webhook delivery queue of the sandboxes (Trello's webhooks, Zendesk's event
 * invocations, Vercel's account webhooks; issue 25 §4): it keeps the bounded record, runs each
 * delivery's attempts on real-time timers that a reset cancels at once, and retries on the
 * platform's schedule. What differs per platform comes in as rules: how an attempt is signed and
 * sent, how it is recorded, and what an answer means (delivered, retry after a wait, or an end).
 */
export interface DeliveryRecord {
  id: string
  state: string
  attempts: unknown[]
}

export interface DeliverySchedule {
  /** The waits before each retry: one entry per retry, none left means the delivery failed. */
  retryDelaysMs: number[]
  /** Each attempt's deadline. */
  timeoutMs: number
}

/** What an attempt's answer means: a final state, or another attempt after `retryInMs`. */
export type AttemptVerdict = { end: string } | { retryInMs: number }

export interface DeliveryRules<D extends DeliveryRecord> {
  /**
   * Signs and sends one attempt (signing here lets a platform sign afresh at every attempt).
   * Undefined cancels the delivery without an attempt: its webhook is gone or inactive.
   */
  send(delivery: D, timeoutMs: number): Promise<PostOutcome | undefined>
  /** Appends the attempt to the record, in the platform's shape; `sentAt` is the clock before sending. */
  record(delivery: D, outcome: PostOutcome, sentAt: number): void
  /** The platform's retry schedule: `nextDelayMs` is the schedule's wait for this retry, if any is left. */
  verdict(delivery: D, outcome: PostOutcome, nextDelayMs: number | undefined): AttemptVerdict
  /** After a delivery reached its final state. */
  ended?(delivery: D): void
  /** The state a delivery cancelled before its end takes. */
  cancelled: string
  now(): number
}

/** An attempt as Trello's and Zendesk's control APIs list it: numbered, with the time it was sent. */
export interface NumberedAttempt {
  attempt: number
  at: string
  status: number | null
  error: string | null
  duration_ms: number
}

/** Appends the next numbered attempt; `at` is the send time in the platform's own format. */
export function recordNumbered(
  delivery: { attempts: NumberedAttempt[] },
  sent: PostOutcome,
  at: string,
): void {
  delivery.attempts.push({
    attempt: delivery.attempts.length + 1,
    at,
    status: sent.status,
    error: sent.error,
    duration_ms: sent.durationMs,
  })
}

/** The common verdict: a 2xx is delivered; anything else is retried while the schedule lasts. */
export function retryWhileScheduled(outcome: PostOutcome, nextDelayMs: number | undefined): AttemptVerdict {
  const status = outcome.status
  if (status !== null && status >= 200 && status < 300) return { end: 'delivered' }
  return nextDelayMs === undefined ? { end: 'failed' } : { retryInMs: nextDelayMs }
}

export class DeliveryQueue<D extends DeliveryRecord> {
  /** The retry schedule and deadline, settable through each sandbox's control API. */
  settings: DeliverySchedule
  private records: D[] = []
  private readonly timers = new AttemptTimers()

  constructor(
    private readonly rules: DeliveryRules<D>,
    private readonly defaults: Readonly<DeliverySchedule>,
  ) {
    this.settings = this.defaultSettings()
  }

  defaultSettings(): DeliverySchedule {
    return { ...this.defaults, retryDelaysMs: [...this.defaults.retryDelaysMs] }
  }

  /** Keeps the delivery and sends its first attempt after the current API answer. */
  begin(delivery: D): D {
    this.records.push(delivery)
    trimSettled(this.records)
    this.timers.schedule(0, () => this.attempt(delivery))
    return delivery
  }

  /** The records that match, oldest first, copied so callers cannot change them. */
  listWhere(match: (delivery: D) => boolean = () => true): D[] {
    return this.records
      .filter(match)
      .map((d) => ({ ...d, attempts: d.attempts.map((a) => ({ ...(a as object) })) }))
  }

  get(id: string): D | undefined {
    return this.listWhere((d) => d.id === id)[0]
  }

  pendingCount(): number {
    return this.records.filter((d) => d.state === 'pending').length
  }

  /** Resolves once nothing is pending (true), or false after `timeoutMs`. */
  settled(timeoutMs: number): Promise<boolean> {
    return settledWithin(() => this.pendingCount() > 0, timeoutMs)
  }

  /** Cancels the pending deliveries that match (a webhook answered 410, say). */
  cancelWhere(match: (delivery: D) => boolean): void {
    for (const d of this.records) if (d.state === 'pending' && match(d)) d.state = this.rules.cancelled
  }

  /** Forgets the settled deliveries; pending ones carry on. */
  forgetSettled(): void {
    this.records = this.records.filter((d) => d.state === 'pending')
  }

  /** Back to nothing: scheduled attempts are dropped, pending deliveries end as `state`, the record empties. */
  reset(state = this.rules.cancelled): void {
    this.timers.cancel()
    for (const d of this.records) if (d.state === 'pending') d.state = state
    this.records = []
  }

  /** Refuses new attempts, cancels the pending ones, and waits for those already sending. */
  async close(): Promise<void> {
    const closing = this.timers.close()
    this.cancelWhere(() => true)
    await closing
  }

  private async attempt(delivery: D): Promise<void> {
    if (this.timers.closed || delivery.state !== 'pending') return
    const sentAt = this.rules.now()
    const outcome = await this.rules.send(delivery, this.settings.timeoutMs)
    if (this.timers.closed || delivery.state !== 'pending') return
    if (outcome === undefined) {
      delivery.state = this.rules.cancelled
      return
    }
    this.rules.record(delivery, outcome, sentAt)
    const verdict = this.rules.verdict(
      delivery,
      outcome,
      this.settings.retryDelaysMs[delivery.attempts.length - 1],
    )
    if ('retryInMs' in verdict) this.timers.schedule(verdict.retryInMs, () => this.attempt(delivery))
    else {
      delivery.state = verdict.end
      this.rules.ended?.(delivery)
    }
  }
}

export { postDelivery, type PostOutcome }
