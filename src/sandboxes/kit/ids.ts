import { randomBytes, randomInt } from 'node:crypto'

/**
 * The random parts of the sandboxes' ids, tokens and secrets. Each sandbox's ids.ts declares its
 * platform's shapes (prefixes, lengths, alphabets) on top of these.
 */
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const LOWER36 = '0123456789abcdefghijklmnopqrstuvwxyz'

/** `length` characters drawn uniformly from `alphabet`. */
export function randomString(alphabet: string, length: number): string {
  let out = ''
  for (let i = 0; i < length; i += 1) out += alphabet[randomInt(alphabet.length)]
  return out
}

/** `bytes` random bytes as lowercase hex (twice as many characters). */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex')
}

/** `bytes` random bytes as unpadded base64url. */
export function randomBase64Url(bytes: number): string {
  return randomBytes(bytes).toString('base64url')
}
