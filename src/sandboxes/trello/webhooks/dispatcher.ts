import { randomUUID } from 'node:crypto'
import {
  DeliveryQueue as KitQueue,
  postDelivery,
  retryWhileScheduled,
  recordNumbered,
  type DeliverySchedule,
  type NumberedAttempt,
} from '../../kit/delivery-queue.ts'
import { SIGNATURE_HEADER } from './signature.ts'

/**
 * Outgoing webhook deliveries. Each one is a POST of JSON `{action, model, webhook}` with
 * `X-Trello-Webhook`, sent after the API response (never blocking it). A non-2xx answer or a
 * connection error is retried after each delay in `retryDelaysMs` — Trello's text says it
 * "will retry 3 times" (sources: Trello actions and webhooks), so the default is three retries at 1 s, 5 s and 30 s (real
 * time, settable through the control API). A 410 answer deletes the webhook at once.
 */
export type DeliverySettings = DeliverySchedule

export const DEFAULT_DELIVERY_SETTINGS: Readonly<DeliverySettings> = {
  retryDelaysMs: [1000, 5000, 30_000],
  timeoutMs: 10_000,
}

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'gone' | 'cancelled'

export type DeliveryAttempt = NumberedAttempt

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

/** Trello's deliveries on the sandboxes' one queue (kit/delivery-queue.ts), with Trello's rules. */
export class DeliveryQueue extends KitQueue<Delivery> {
  constructor(private readonly hooks: DeliveryHooks) {
    super(
      {
        now: () => hooks.now(),
        cancelled: 'cancelled',
        send: async (delivery, timeoutMs) => {
          if (!hooks.alive(delivery.webhook_id)) return undefined
          const headers = {
            'content-type': 'application/json',
            [SIGNATURE_HEADER]: delivery.signature,
            'user-agent': 'Trello-Sandbox-Webhooks',
          }
          return postDelivery(delivery.callback_url, headers, delivery.body, timeoutMs)
        },
        record: (delivery, sent, sentAt) => recordNumbered(delivery, sent, new Date(sentAt).toISOString()),
        // A 410 deletes the webhook at once; anything else but a 2xx is retried on the schedule.
        verdict: (_delivery, sent, nextDelayMs) =>
          sent.status === 410 ? { end: 'gone' } : retryWhileScheduled(sent, nextDelayMs),
        ended: (delivery) => {
          if (delivery.state === 'delivered') hooks.delivered(delivery.webhook_id)
          else if (delivery.state === 'failed') hooks.failed(delivery.webhook_id)
          else if (delivery.state === 'gone') {
            this.cancelWhere((other) => other.webhook_id === delivery.webhook_id)
            hooks.gone(delivery.webhook_id)
          }
        },
      },
      DEFAULT_DELIVERY_SETTINGS,
    )
  }

  enqueue(input: Omit<Delivery, 'id' | 'state' | 'attempts' | 'created_at'>): Delivery {
    return this.begin({
      ...input,
      id: randomUUID(),
      state: 'pending',
      attempts: [],
      created_at: new Date(this.hooks.now()).toISOString(),
    })
  }

  list(filter: { webhookId?: string | null; actionType?: string | null } = {}): Delivery[] {
    return this.listWhere(
      (d) =>
        (!filter.webhookId || d.webhook_id === filter.webhookId) &&
        (!filter.actionType || d.action_type === filter.actionType),
    )
  }

  /** Forgets the settled deliveries (DELETE /_control/deliveries). */
  clear(): void {
    this.forgetSettled()
  }

  /** Cancels every pending delivery and timer (reset, close). */
  stop(): void {
    void this.close()
  }
}
