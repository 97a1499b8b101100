import { FaultInjector } from '../kit/faults.ts'
import { loadSnapshot, saveSnapshot } from './persistence.ts'
import { RateLimiter } from './rate-limit.ts'
import { RequestLog } from './request-log.ts'
import { seedStore } from './seed.ts'
import { SandboxStore } from './state.ts'
import { SandboxClock } from '../kit/clock.ts'

export interface ZendeskSandboxOptions {
  /** Load the seeded accounts, users, tickets and OAuth client (default true). */
  seed?: boolean
  /**
   * Directory for a JSON snapshot of the state: loaded at start when present (instead of the
   * seed), rewritten after every mutating request. Without it, state lives in memory only.
   */
  dataDir?: string
}

/** One sandbox instance: its state plus the test machinery around it. */
export class ZendeskSandbox {
  readonly clock = new SandboxClock()
  readonly faults = new FaultInjector()
  readonly requestLog = new RequestLog()
  readonly rateLimiter = new RateLimiter()
  store: SandboxStore

  constructor(private readonly options: ZendeskSandboxOptions = {}) {
    this.store = (options.dataDir ? loadSnapshot(options.dataDir) : undefined) ?? this.freshStore()
  }

  /** Writes the snapshot when a data directory is configured. */
  persist(): void {
    if (this.options.dataDir) saveSnapshot(this.options.dataDir, this.store)
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
    this.persist()
  }

  private freshStore(): SandboxStore {
    const store = new SandboxStore()
    if (this.options.seed !== false) seedStore(store)
    return store
  }
}
