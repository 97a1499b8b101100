import { hash, randomBytes, timingSafeEqual } from 'node:crypto'

/** 128 bits of randomness, URL-safe. */
export const randomToken = (bytes = 16): string => randomBytes(bytes).toString('base64url')

export const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('base64url')}`

// The one-shot form: it skips building a Hash object, and this runs on every authenticated call.
export const sha256 = (value: string): string => hash('sha256', value, 'hex')

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
