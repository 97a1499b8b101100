import { describedErrors } from '../kit/control.ts'
import { SandboxInstance } from '../kit/instance.ts'
import { DeliveryQueue } from './events/deliveries.ts'
import { RateLimiter } from './rate-limit.ts'
import { seedStore } from './seed.ts'
import { SandboxStore } from './state.ts'

/** Query parameters whose values are credentials, masked in the request log. */
const REQUEST_LOG_SECRETS = ['access_token', 'client_secret', 'code', 'password']

export interface ZendeskSandboxOptions {
  /** Load the seeded accounts, users, tickets and OAuth client (default true). */
  seed?: boolean
}

/** One sandbox instance: its state plus the test machinery around it. State lives in memory. */
export class ZendeskSandbox extends SandboxInstance<SandboxStore> {
  readonly rateLimiter = new RateLimiter()
  /** Event webhook invocations (events/deliveries.ts). */
  readonly deliveries: DeliveryQueue = new DeliveryQueue({
    now: () => this.now(),
    secretOf: (subdomain, webhookId) => {
      const hook = this.store.account(subdomain)?.webhooks.get(webhookId)
      return hook?.status === 'active' ? hook.signingSecret : undefined
    },
  })

  constructor(options: ZendeskSandboxOptions = {}) {
    super({
      emptyStore: () => new SandboxStore(),
      seed: seedStore,
      seeded: options.seed,
      logSecrets: { params: REQUEST_LOG_SECRETS },
      // 4xx faults too: a 401 on one path is how tests meet a refusal that says nothing of the token.
      control: { errors: describedErrors, faultRules: { minStatus: 400 } },
    })
  }

  protected override resetOwnParts(): void {
    this.rateLimiter.clear()
    this.deliveries.reset()
  }
}
