import { randomInt, randomUUID } from 'node:crypto'
import {
  DeliveryQueue as KitQueue,
  postDelivery,
  recordNumbered,
  type DeliverySchedule,
  type NumberedAttempt,
  type PostOutcome,
} from '../../kit/delivery-queue.ts'
import { isoSeconds } from '../time.ts'
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, webhookSignature } from './signature.ts'

/**
 * Outgoing event deliveries ("invocations"). Each is a POST of one event's JSON with Zendesk's
 * headers (sources: Zendesk webhooks, Z-WHA), signed afresh at every attempt with the sandbox clock,
 * sent after the API response. Zendesk retries "certain HTTP response codes" behind a circuit
 * breaker without saying which; the sandbox's choice (docs/sandbox.md, "Event deliveries"): a
 * connection error, a timeout, 409, 429 and any 5xx are retried after each of `retryDelaysMs`
 * (default 1 s, 5 s, 30 s; a Retry-After of at most 60 s on 429/503 is honoured instead); any
 * other answer ends the invocation. The invocation id stays the same across retries.
 */
export type DeliverySettings = DeliverySchedule

export const DEFAULT_DELIVERY_SETTINGS: Readonly<DeliverySettings> = {
  retryDelaysMs: [1000, 5000, 30_000],
  timeoutMs: 12_000,
}
const MAX_RETRY_AFTER_S = 60

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'cancelled'

export type DeliveryAttempt = NumberedAttempt

export interface Delivery {
  /** The invocation id (`x-zendesk-webhook-invocation-id`): digits, as Zendesk's are. */
  id: string
  account: string
  account_id: number
  webhook_id: string
  event_id: string
  event_type: string
  endpoint: string
  state: DeliveryState
  attempts: DeliveryAttempt[]
  created_at: string
  /** The exact bytes sent, so tests can verify them. */
  body: string
  /** The webhook's `custom_headers`, sent with every attempt; Zendesk's own headers win a clash. */
  custom_headers: Record<string, string>
}

/** Injected delivery faults (`POST /_control/delivery-faults`): what the sandbox does wrong on purpose. */
export type DeliveryFaultKind = 'duplicate' | 'bad_signature' | 'stale_timestamp' | 'fail'
export interface DeliveryFault {
  id: string
  kind: DeliveryFaultKind
  /** For `fail`: the status recorded as the receiver's answer, without sending (default 503). */
  status: number | null
  webhook_id: string | null
  event_type: string | null
  /** How many more attempts it applies to; null = until removed. */
  remaining: number | null
}

export interface DeliveryHooks {
  now(): number
  /** The webhook's current signing secret, or undefined once it is deleted or inactive (pending deliveries are then cancelled). */
  secretOf(account: string, webhookId: string): string | undefined
}

/** Zendesk's invocations on the sandboxes' one queue (kit/delivery-queue.ts), with Zendesk's rules. */
export class DeliveryQueue extends KitQueue<Delivery> {
  faults: DeliveryFault[] = []

  constructor(private readonly hooks: DeliveryHooks) {
    super(
      {
        now: () => hooks.now(),
        cancelled: 'cancelled',
        send: (delivery, timeoutMs) => this.sendOne(delivery, timeoutMs),
        record: (delivery, sent, sentAt) => recordNumbered(delivery, sent, isoSeconds(sentAt)),
        verdict: (_delivery, sent, nextDelayMs) => {
          const status = sent.status
          if (status !== null && status >= 200 && status < 300) return { end: 'delivered' }
          const retriable = status === null || status === 409 || status === 429 || status >= 500
          if (!retriable || nextDelayMs === undefined) return { end: 'failed' }
          const seconds =
            sent.retryAfter !== null && /^\d+$/.test(sent.retryAfter) && (status === 429 || status === 503)
              ? Number(sent.retryAfter)
              : undefined
          return {
            retryInMs: seconds !== undefined && seconds <= MAX_RETRY_AFTER_S ? seconds * 1000 : nextDelayMs,
          }
        },
      },
      DEFAULT_DELIVERY_SETTINGS,
    )
  }

  enqueue(input: Omit<Delivery, 'id' | 'state' | 'attempts' | 'created_at'>): void {
    this.begin({
      ...input,
      id: String(randomInt(1_000_000_000, 9_999_999_999)),
      state: 'pending',
      attempts: [],
      created_at: isoSeconds(this.hooks.now()),
    })
  }

  list(
    filter: { webhookId?: string | null; eventType?: string | null; account?: string | null } = {},
  ): Delivery[] {
    return this.listWhere(
      (d) =>
        (!filter.webhookId || d.webhook_id === filter.webhookId) &&
        (!filter.eventType || d.event_type === filter.eventType) &&
        (!filter.account || d.account === filter.account),
    )
  }

  /** Forgets the settled deliveries (DELETE /_control/deliveries). */
  clear(): void {
    this.forgetSettled()
  }

  addFault(fault: Omit<DeliveryFault, 'id'>): DeliveryFault {
    const added = { ...fault, id: randomUUID() }
    this.faults.push(added)
    return { ...added }
  }

  /** Back to start: nothing pending, no faults, default settings. */
  override reset(): void {
    super.reset()
    this.faults = []
    this.settings = this.defaultSettings()
  }

  stop(): void {
    void this.close()
    this.reset()
  }

  /** Claims the first fault for this delivery, counting it down. */
  private claimFault(delivery: Delivery): DeliveryFault | undefined {
    const fault = this.faults.find(
      (f) =>
        (!f.webhook_id || f.webhook_id === delivery.webhook_id) &&
        (!f.event_type || f.event_type === delivery.event_type),
    )
    if (!fault) return undefined
    if (fault.remaining !== null && --fault.remaining <= 0)
      this.faults = this.faults.filter((f) => f !== fault)
    return fault
  }

  private headers(
    delivery: Delivery,
    secret: string,
    fault: DeliveryFault | undefined,
  ): Record<string, string> {
    const now = this.hooks.now()
    // A stale timestamp is ten minutes old, well outside any receiver's window.
    const timestamp = isoSeconds(fault?.kind === 'stale_timestamp' ? now - 600_000 : now)
    const signature = webhookSignature(
      fault?.kind === 'bad_signature' ? `${secret}-wrong` : secret,
      timestamp,
      delivery.body,
    )
    return {
      ...delivery.custom_headers,
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Zendesk Webhook',
      'x-zendesk-account-id': String(delivery.account_id),
      'x-zendesk-webhook-id': delivery.webhook_id,
      'x-zendesk-webhook-invocation-id': delivery.id,
      [SIGNATURE_HEADER]: signature,
      [TIMESTAMP_HEADER]: timestamp,
    }
  }

  /** One attempt, signed afresh with the sandbox clock; an injected fault may change or replace it. */
  private async sendOne(delivery: Delivery, timeoutMs: number): Promise<PostOutcome | undefined> {
    const secret = this.hooks.secretOf(delivery.account, delivery.webhook_id)
    if (secret === undefined) return undefined
    const fault = this.claimFault(delivery)
    if (fault?.kind === 'fail')
      return {
        status: fault.status ?? 503,
        error: 'injected fault: not sent',
        retryAfter: null,
        durationMs: 0,
      }
    const headers = this.headers(delivery, secret, fault)
    const sent = await postDelivery(delivery.endpoint, headers, delivery.body, timeoutMs)
    // At-least-once delivery: the same invocation, sent again at once.
    if (fault?.kind === 'duplicate') await postDelivery(delivery.endpoint, headers, delivery.body, timeoutMs)
    return sent
  }
}
