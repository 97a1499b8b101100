import { describedErrors } from '../kit/control.ts'
import { SandboxInstance } from '../kit/instance.ts'
import { ObjectIdFactory } from './ids.ts'
import { NonceCache } from './oauth1/nonces.ts'
import { RateLimiter } from './rate-limit.ts'
import type { LogSecrets } from '../kit/request-log.ts'
import { seedStore } from './seed.ts'
import { TrelloStore } from './state.ts'
import { DeliveryQueue } from './webhooks/dispatcher.ts'

/** Credentials in requests, masked in the request log: query values, and tokens in `/1/tokens/{token}/...`. */
const REQUEST_LOG_SECRETS: LogSecrets = {
  params: [
    'key',
    'token',
    'oauth_signature',
    'oauth_token',
    'oauth_verifier',
    'oauth_consumer_key',
    'password',
  ],
  path: (path) => path.replace(/(\/tokens\/)[^/?]+/gi, '$1[redacted]'),
}

export interface TrelloSandboxOptions {
  /** Load the seeded members, app and "Roadmap" board (default true). */
  seed?: boolean
}

/** How long the HEAD check on a webhook's callbackURL may take. */
export const DEFAULT_CALLBACK_CHECK_TIMEOUT_MS = 5000

/** One sandbox instance: its state plus the test machinery around it. State lives in memory. */
export class TrelloSandbox extends SandboxInstance<TrelloStore> {
  readonly ids = new ObjectIdFactory()
  readonly rateLimiter = new RateLimiter()
  readonly nonces = new NonceCache()
  deliveries: DeliveryQueue
  callbackCheckTimeoutMs = DEFAULT_CALLBACK_CHECK_TIMEOUT_MS

  constructor(options: TrelloSandboxOptions = {}) {
    super({
      emptyStore: () => new TrelloStore(),
      seed: seedStore,
      seeded: options.seed,
      logSecrets: REQUEST_LOG_SECRETS,
      // Trello tests need 4xx faults, and Trello's own 429s carry no Retry-After.
      control: { errors: describedErrors, faultRules: { minStatus: 400, defaultRetryAfter: null } },
    })
    this.deliveries = this.freshDeliveries()
  }

  /** A new ObjectId stamped with the sandbox clock. */
  newId(): string {
    return this.ids.next(this.now())
  }

  /** Limits, nonces, delivery settings and deliveries (pending ones cancelled) back to start. */
  protected override resetOwnParts(): void {
    this.deliveries.stop()
    this.rateLimiter.clear()
    this.nonces.clear()
    this.callbackCheckTimeoutMs = DEFAULT_CALLBACK_CHECK_TIMEOUT_MS
    this.deliveries = this.freshDeliveries()
  }

  close(): void {
    this.deliveries.stop()
  }

  private freshDeliveries(): DeliveryQueue {
    return new DeliveryQueue({
      now: () => this.now(),
      alive: (id) => this.store.webhooks.get(id)?.active === true,
      delivered: (id) => {
        const webhook = this.store.webhooks.get(id)
        if (webhook) {
          webhook.consecutiveFailures = 0
          webhook.firstConsecutiveFailDate = null
        }
      },
      failed: (id) => {
        const webhook = this.store.webhooks.get(id)
        if (webhook) {
          webhook.consecutiveFailures += 1
          webhook.firstConsecutiveFailDate ??= this.now()
        }
      },
      gone: (id) => {
        this.store.webhooks.delete(id)
      },
    })
  }
}
