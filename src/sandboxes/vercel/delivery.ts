import { createHmac } from 'node:crypto'
import { AttemptTimers, postDelivery, trimSettled } from '../kit/outbox.ts'
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

export class WebhookDispatcher {
  settings = defaultDeliverySettings()
  private deliveries: Delivery[] = []
  private readonly timers = new AttemptTimers()
  private waiters: Array<() => void> = []
  private nextId = 1

  constructor(private readonly now: () => number) {}

  enqueue(
    webhookId: string,
    url: string,
    secret: string,
    eventId: string,
    type: string,
    body: string,
  ): Delivery {
    const delivery: Delivery = {
      id: String(this.nextId++),
      webhookId,
      eventId,
      type,
      url,
      body,
      state: 'pending',
      attempts: [],
    }
    this.deliveries.push(delivery)
    trimSettled(this.deliveries)
    this.timers.schedule(0, () => this.attempt(delivery, secret))
    return delivery
  }

  private async attempt(delivery: Delivery, secret: string): Promise<void> {
    if (delivery.state !== 'pending') return
    const headers = {
      'content-type': 'application/json',
      'x-vercel-signature': sign(secret, delivery.body),
      'user-agent': 'Vercel-Webhooks/sandbox',
    }
    const { status, error, durationMs } = await postDelivery(
      delivery.url,
      headers,
      delivery.body,
      this.settings.timeout_ms,
    )
    if (delivery.state !== 'pending') return
    delivery.attempts.push({ at: this.now(), status, error, duration_ms: durationMs })
    if (status !== null && status >= 200 && status < 300) delivery.state = 'delivered'
    else {
      const delay = this.settings.retry_delays_ms[delivery.attempts.length - 1]
      if (delay === undefined || this.timers.closed) delivery.state = 'failed'
      else this.timers.schedule(delay, () => this.attempt(delivery, secret))
    }
    if (delivery.state !== 'pending') this.notify()
  }

  private notify(): void {
    if (this.deliveries.some((d) => d.state === 'pending')) return
    const waiters = this.waiters
    this.waiters = []
    for (const w of waiters) w()
  }

  /** Resolves once no delivery is pending (or after timeoutMs); returns whether settled. */
  async settled(timeoutMs: number): Promise<boolean> {
    if (!this.deliveries.some((d) => d.state === 'pending')) return true
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs)
      this.waiters.push(() => {
        clearTimeout(timer)
        resolve(true)
      })
    })
  }

  list(): Delivery[] {
    return this.deliveries.map((d) => ({ ...d, attempts: d.attempts.map((a) => ({ ...a })) }))
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
    return undefined
  }

  /** Drops pending retries and the delivery record (reset). */
  clear(): void {
    this.timers.cancel()
    for (const d of this.deliveries) if (d.state === 'pending') d.state = 'failed'
    this.notify()
    this.deliveries = []
  }

  resetSettings(): void {
    this.settings = defaultDeliverySettings()
  }

  async close(): Promise<void> {
    this.clear()
    await this.timers.close()
  }
}
