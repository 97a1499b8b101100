import { timingSafeEqual } from 'node:crypto'
import type { Verification } from './define.ts'

const FORMATS = {
  base64: /^[A-Za-z0-9+/]+={0,2}$/,
  hex: /^(?:[0-9a-fA-F]{2})+$/,
} as const

/**
 * Whether a signature header carries the expected digest, compared in constant time. A header that
 * is missing, empty or not in its encoding is invalid: Buffer.from would skip the characters it
 * cannot read, so a malformed header must not reach the comparison.
 */
export function matchesSignature(
  header: string | undefined,
  expected: Buffer,
  encoding: keyof typeof FORMATS,
): Verification {
  const given = header?.trim()
  if (!given || !FORMATS[encoding].test(given)) return 'invalid'
  const bytes = Buffer.from(given, encoding)
  return bytes.length === expected.length && timingSafeEqual(bytes, expected) ? 'valid' : 'invalid'
}
