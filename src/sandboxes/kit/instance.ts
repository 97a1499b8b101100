import { SandboxClock } from './clock.ts'
import { MachineryControl, type MachineryOptions } from './control.ts'
import { FaultInjector } from './faults.ts'
import { RequestLog, type LogSecrets } from './request-log.ts'

export interface InstanceSetup<S> {
  /** An empty store. */
  emptyStore(): S
  /** Fills a store with the platform's seed, when the sandbox is seeded. */
  seed(store: S): void
  /** `seed: false` starts empty (default: seeded). */
  seeded?: boolean
  logSecrets?: LogSecrets
  control: MachineryOptions
}

/**
 * What every sandbox instance has around its platform's state: the sandbox clock, injected faults,
 * the request log and the control routes over them. State lives in memory; `reset()` brings it
 * all back to how it was at start.
 */
export class SandboxInstance<S> {
  readonly clock = new SandboxClock()
  readonly faults = new FaultInjector()
  readonly requestLog: RequestLog
  /** The control routes for the clock, faults, request log and reset. */
  readonly control: MachineryControl
  store: S

  constructor(private readonly setup: InstanceSetup<S>) {
    this.requestLog = new RequestLog(setup.logSecrets)
    this.control = new MachineryControl(this, setup.control)
    this.store = this.freshStore()
  }

  now(): number {
    return this.clock.now()
  }

  /** Back to the state right after start: seed (if enabled), clock, faults, log, and the platform's own parts. */
  reset(): void {
    this.clock.reset()
    this.faults.clear()
    this.requestLog.clear()
    this.store = this.freshStore()
    this.resetOwnParts()
  }

  /** The platform's own machinery (rate limits, deliveries) back to start; runs after the store is fresh. */
  protected resetOwnParts(): void {}

  private freshStore(): S {
    const store = this.setup.emptyStore()
    if (this.setup.seeded !== false) this.setup.seed(store)
    return store
  }
}
