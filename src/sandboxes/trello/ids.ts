import { BASE62, randomHex, randomString } from '../kit/ids.ts'

/** Trello ids are Mongo ObjectIds: 24 lowercase hex characters (§2.2, T-ARCH card.html). */
export const OBJECT_ID = /^[0-9a-f]{24}$/
/** `shortLink`: 8 base62 characters, e.g. `Yd9ScoJS` (§2.2). */
export const SHORT_LINK = /^[0-9A-Za-z]{8}$/
/** API keys are 32 hex characters; app secrets and user tokens 64 (the classic, pre-"ATTA" form). */
export const API_KEY = /^[0-9a-f]{32}$/
export const USER_TOKEN = /^[0-9a-f]{64}$/

/**
 * Makes ObjectIds the way MongoDB does: 4 bytes of creation time in seconds, 5 random bytes
 * fixed per process (here: per sandbox), 3 bytes of counter. Ids therefore sort by creation
 * time, and within one second by creation order, as Trello's do.
 */
export class ObjectIdFactory {
  private readonly machine = randomHex(5)
  private counter = 0

  next(nowMs: number): string {
    const seconds = Math.max(0, Math.floor(nowMs / 1000)) % 0x1_0000_0000
    this.counter = (this.counter + 1) % 0x100_0000
    return seconds.toString(16).padStart(8, '0') + this.machine + this.counter.toString(16).padStart(6, '0')
  }
}

export function shortLink(): string {
  return randomString(BASE62, 8)
}

/** Random hex of `bytes` bytes: keys, secrets, tokens and OAuth 1.0a values. */
export { randomHex as hex } from '../kit/ids.ts'
