import { MachineryControl, describedErrors } from '../kit/control.ts'
import { FaultInjector } from '../kit/faults.ts'
import { RateLimiter } from './rate-limit.ts'
import { RequestLog } from '../kit/request-log.ts'
import { seedStore } from './seed.ts'
import { SandboxStore } from './state.ts'
import { SandboxClock } from '../kit/clock.ts'

/** Query parameters whose values are credentials, masked in the request log. */
const REQUEST_LOG_SECRETS = ['access_token', 'client_secret', 'code', 'password']

export interface ZendeskSandboxOptions {
  /** Load the seeded accounts, users, tickets and OAuth client (default true). */
  seed?: boolean
}

/** One sandbox instance: its state plus the test machinery around it. State lives in memory. */
export class ZendeskSandbox {
  readonly clock = new SandboxClock()
  readonly faults = new FaultInjector()
  readonly requestLog = new RequestLog({ params: REQUEST_LOG_SECRETS })
  readonly rateLimiter = new RateLimiter()
  /** The control routes for the clock, faults, request log and reset. */
  readonly control = new MachineryControl(this, { errors: describedErrors })
  store: SandboxStore

  constructor(private readonly options: ZendeskSandboxOptions = {}) {
    this.store = this.freshStore()
  }

  now(): number {
    return this.clock.now()
  }

  /** Back to the state right after start: seed (if enabled), clock, faults, log and limits. */
  reset(): void {
    this.clock.reset()
    this.faults.clear()
    this.requestLog.clear()
    this.rateLimiter.clear()
    this.store = this.freshStore()
  }

  private freshStore(): SandboxStore {
    const store = new SandboxStore()
    if (this.options.seed !== false) seedStore(store)
    return store
  }
}
