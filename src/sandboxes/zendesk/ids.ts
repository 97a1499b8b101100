import { BASE62, randomHex, randomString } from '../kit/ids.ts'

const CROCKFORD_BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const ULID_TIME_CHARS = 10
const ULID_RANDOM_CHARS = 16

/** Opaque secret of `bytes` random bytes, hex encoded (Zendesk tokens look like 32-64 hex/alnum chars). */
export function randomToken(bytes = 32): string {
  return randomHex(bytes)
}

/** A 40-character alphanumeric API token, the length Zendesk's admin UI shows. */
export function randomApiToken(): string {
  return randomString(BASE62, 40)
}

/**
 * ULID-like id (26 Crockford base32 chars: 48-bit time + 80 random bits), the shape of
 * Zendesk webhook ids such as `01GK8E6BKWMJZD2T8Y5AXJQMG5` (platform-apis.md §1.9).
 */
export function ulid(nowMs: number): string {
  let time = ''
  let t = nowMs
  for (let i = 0; i < ULID_TIME_CHARS; i++) {
    time = CROCKFORD_BASE32[t % 32] + time
    t = Math.floor(t / 32)
  }
  return time + randomString(CROCKFORD_BASE32, ULID_RANDOM_CHARS)
}
