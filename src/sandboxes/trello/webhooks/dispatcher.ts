import { randomUUID } from 'node:crypto'
import { AttemptTimers, postDelivery, settledWithin, trimSettled } from '../../kit/outbox.ts'
import { SIGNATURE_HEADER } from './signature.ts'

/**
 * Outgoing webhook deliveries. Each one is a POST of JSON `{action, model, webhook}` with
 * `X-Trello-Webhook`, sent after the API response (never blocking it). A non-2xx answer or a
 * connection error is retried after each delay in `retryDelaysMs` — Trello's text says it
 * "will retry 3 times" (sources: Trello actions and webhooks), so the default is three retries at 1 s, 5 s and 30 s (real
 * time, settable through the control API). A 410 answer deletes the webhook at once.
 */
export interface DeliverySettings {
  retryDelaysMs: number[]
  timeoutMs: number
}

export const DEFAULT_DELIVERY_SETTINGS: Readonly<DeliverySettings> = {
  retryDelaysMs: [1000, 5000, 30_000],
  timeoutMs: 10_000,
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'gone' | 'cancelled'

export interface DeliveryAttempt {
  attempt: number
  at: string
  status: number | null
  error: string | null
  duration_ms: number
}

export interface Delivery {
  id: string
  webhook_id: string
  action_id: string
  action_type: string
  model_id: string
  callback_url: string
  state: DeliveryState
  attempts: DeliveryAttempt[]
  created_at: string
  /** The exact bytes sent, and their signature, so tests can verify them. */
  body: string
  signature: string
}

export interface DeliveryHooks {
  now(): number
  /** False once the webhook is deleted or deactivated: its pending deliveries are cancelled. */
  alive(webhookId: string): boolean
  delivered(webhookId: string): void
  failed(webhookId: string): void
  gone(webhookId: string): void
}

export class DeliveryQueue {
  settings: DeliverySettings = {
    ...DEFAULT_DELIVERY_SETTINGS,
    retryDelaysMs: [...DEFAULT_DELIVERY_SETTINGS.retryDelaysMs],
  }
  private deliveries: Delivery[] = []
  private readonly timers = new AttemptTimers()

  constructor(private readonly hooks: DeliveryHooks) {}

  enqueue(input: Omit<Delivery, 'id' | 'state' | 'attempts' | 'created_at'>): Delivery {
    const delivery: Delivery = {
      ...input,
      id: randomUUID(),
      state: 'pending',
      attempts: [],
      created_at: new Date(this.hooks.now()).toISOString(),
    }
    this.deliveries.push(delivery)
    trimSettled(this.deliveries)
    this.timers.schedule(0, () => this.attempt(delivery))
    return delivery
  }

  list(filter: { webhookId?: string | null; actionType?: string | null } = {}): Delivery[] {
    return this.deliveries
      .filter(
        (d) =>
          (!filter.webhookId || d.webhook_id === filter.webhookId) &&
          (!filter.actionType || d.action_type === filter.actionType),
      )
      .map((d) => ({ ...d, attempts: d.attempts.map((a) => ({ ...a })) }))
  }

  get(id: string): Delivery | undefined {
    return this.list().find((d) => d.id === id)
  }

  pendingCount(): number {
    return this.deliveries.filter((d) => d.state === 'pending').length
  }

  /** Resolves once nothing is pending (or the timeout passes). */
  settled(timeoutMs: number): Promise<boolean> {
    return settledWithin(() => this.pendingCount() > 0, timeoutMs)
  }

  clear(): void {
    this.deliveries = this.deliveries.filter((d) => d.state === 'pending')
  }

  /** Cancels every pending delivery and timer (reset, close). */
  stop(): void {
    void this.timers.close()
    for (const d of this.deliveries) if (d.state === 'pending') d.state = 'cancelled'
  }

  private async attempt(delivery: Delivery): Promise<void> {
    if (this.timers.closed || delivery.state !== 'pending') return
    if (!this.hooks.alive(delivery.webhook_id)) {
      delivery.state = 'cancelled'
      return
    }
    const at = new Date(this.hooks.now()).toISOString()
    const headers = {
      'content-type': 'application/json',
      [SIGNATURE_HEADER]: delivery.signature,
      'user-agent': 'Trello-Sandbox-Webhooks',
    }
    const sent = await postDelivery(delivery.callback_url, headers, delivery.body, this.settings.timeoutMs)
    if (this.timers.closed || delivery.state !== 'pending') return
    const record: DeliveryAttempt = {
      attempt: delivery.attempts.length + 1,
      at,
      status: sent.status,
      error: sent.error,
      duration_ms: sent.durationMs,
    }
    delivery.attempts.push(record)
    const status = record.status
    if (status !== null && status >= 200 && status < 300) {
      delivery.state = 'delivered'
      this.hooks.delivered(delivery.webhook_id)
    } else if (status === 410) {
      delivery.state = 'gone'
      for (const other of this.deliveries)
        if (other.webhook_id === delivery.webhook_id && other.state === 'pending') other.state = 'cancelled'
      this.hooks.gone(delivery.webhook_id)
    } else {
      const retry = this.settings.retryDelaysMs[delivery.attempts.length - 1]
      if (retry !== undefined) this.timers.schedule(retry, () => this.attempt(delivery))
      else {
        delivery.state = 'failed'
        this.hooks.failed(delivery.webhook_id)
      }
    }
  }
}
