/**
 * Where a person may be sent after signing in: a path of this site, never another site. Anything
 * else (an absolute URL, `//host`, `/\host`, control characters, the sign-in page itself) is the
 * fallback. The web app applies the same rule to its own `next` (src/web/url-state.ts).
 */
export function safeNextPath(next: unknown, fallback = '/integrations'): string {
  if (typeof next !== 'string' || next.length > 2000) return fallback
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return fallback
  if ([...next].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return fallback
  if (/^\/(login|welcome)([?#/]|$)/.test(next)) return fallback
  // Resolved against a stand-in origin, a path that climbs or escapes still lands on that origin.
  const resolved = new URL(next, 'http://same-origin.invalid')
  if (resolved.origin !== 'http://same-origin.invalid') return fallback
  return resolved.pathname + resolved.search + resolved.hash
}
