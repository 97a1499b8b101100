/**
 * A sandbox's own clock: wall time plus an offset that tests move through the control API
 * (`POST /_control/clock`). Token expiry, code lifetimes, rate-limit windows, state machines and
 * record dates read it, so a test can skip ahead without sleeping. (Webhook retry timers are real
 * timers: their delays are set through each control API instead.)
 */
export class SandboxClock {
  private offsetMs = 0

  constructor(private readonly source: () => number = Date.now) {}

  now(): number {
    return this.source() + this.offsetMs
  }

  advance(ms: number): void {
    this.offsetMs += ms
  }

  set(ms: number): void {
    this.offsetMs = ms - this.source()
  }

  reset(): void {
    this.offsetMs = 0
  }
}
