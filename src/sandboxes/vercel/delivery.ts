import { createHmac } from 'node:crypto'
import { DeliveryQueue, postDelivery, retryWhileScheduled } from '../kit/delivery-queue.ts'
import { isRecord } from './http.ts'

/** `x-vercel-signature` = hex(HMAC-SHA1(secret, raw body)) [sources: Vercel webhooks, V-LEGACY, V-TRIG]. */
export function sign(secret: string, rawBody: string): string {
  return createHmac('sha1', secret).update(rawBody).digest('hex')
}

export interface DeliveryAttempt {
  at: number
  status: number | null
  error: string | null
  duration_ms: number
}

export interface Delivery {
  id: string
  webhookId: string
  eventId: string
  type: string
  url: string
  body: string
  state: 'pending' | 'delivered' | 'failed'
  attempts: DeliveryAttempt[]
}

/**
 * Delivery retry policy. Vercel's real schedule is only described by third parties
 * ("exponential backoff up to 24 h", V-HOOKDECK [UNV]); the sandbox retries after these
 * real-time delays (not the sandbox clock, so a test need not move the clock to see retries).
 */
export interface DeliverySettings {
  retry_delays_ms: number[]
  timeout_ms: number
}

export const defaultDeliverySettings = (): DeliverySettings => ({
  retry_delays_ms: [1_000, 5_000, 30_000],
  timeout_ms: 30_000,
})

/** Vercel's deliveries on the sandboxes' one queue (kit/delivery-queue.ts), with Vercel's rules. */
export class WebhookDispatcher {
  settings = defaultDeliverySettings()
  private readonly queue: DeliveryQueue<Delivery & { secret: string }>
  private nextId = 1

  constructor(private readonly now: () => number) {
    this.queue = new DeliveryQueue<Delivery & { secret: string }>(
      {
        now,
        // Cancelled by a reset: recorded as failed, as Vercel's list shows a delivery that ended unanswered.
        cancelled: 'failed',
        send: (delivery, timeoutMs) => {
          const headers = {
            'content-type': 'application/json',
            'x-vercel-signature': sign(delivery.secret, delivery.body),
            'user-agent': 'Vercel-Webhooks/sandbox',
          }
          return postDelivery(delivery.url, headers, delivery.body, timeoutMs)
        },
        record: (delivery, sent) => {
          delivery.attempts.push({
            at: this.now(),
            status: sent.status,
            error: sent.error,
            duration_ms: sent.durationMs,
          })
        },
        verdict: (_delivery, sent, nextDelayMs) => retryWhileScheduled(sent, nextDelayMs),
      },
      { retryDelaysMs: [], timeoutMs: 0 },
    )
    this.applySettings()
  }

  enqueue(
    webhookId: string,
    url: string,
    secret: string,
    eventId: string,
    type: string,
    body: string,
  ): Delivery {
    const { secret: _secret, ...delivery } = this.queue.begin({
      id: String(this.nextId++),
      webhookId,
      eventId,
      type,
      url,
      body,
      state: 'pending',
      attempts: [],
      secret,
    })
    return delivery
  }

  /** Resolves once no delivery is pending (or after timeoutMs); returns whether settled. */
  settled(timeoutMs: number): Promise<boolean> {
    return this.queue.settled(timeoutMs)
  }

  /** The record, without the secret each delivery is signed with. */
  list(): Delivery[] {
    return this.queue.listWhere().map(({ secret: _secret, ...d }) => d)
  }

  configure(body: unknown): string | undefined {
    if (!isRecord(body)) return 'body must be a JSON object'
    const next = { ...this.settings }
    if (body.retry_delays_ms !== undefined) {
      const delays = body.retry_delays_ms
      if (
        !Array.isArray(delays) ||
        !delays.every((d) => typeof d === 'number' && Number.isInteger(d) && d >= 0)
      ) {
        return 'retry_delays_ms must be an array of non-negative integers'
      }
      next.retry_delays_ms = delays as number[]
    }
    if (body.timeout_ms !== undefined) {
      if (typeof body.timeout_ms !== 'number' || !Number.isInteger(body.timeout_ms) || body.timeout_ms <= 0)
        return 'timeout_ms must be a positive integer'
      next.timeout_ms = body.timeout_ms
    }
    this.settings = next
    this.applySettings()
    return undefined
  }

  /** Drops pending retries and the delivery record (reset). */
  clear(): void {
    this.queue.reset()
  }

  resetSettings(): void {
    this.settings = defaultDeliverySettings()
    this.applySettings()
  }

  /** Vercel's control API names the settings its own way; the queue runs on them. */
  private applySettings(): void {
    this.queue.settings = {
      retryDelaysMs: [...this.settings.retry_delays_ms],
      timeoutMs: this.settings.timeout_ms,
    }
  }

  async close(): Promise<void> {
    this.clear()
    await this.queue.close()
  }
}
