import { timingSafeEqual } from 'node:crypto'

/**
 * Constant-time comparison of two secrets (signatures, client secrets, PKCE values), as the real
 * platforms compare them: a sandbox that leaked how much of a guess matched would teach a client
 * an attack the real one refuses.
 */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
