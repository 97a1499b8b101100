/** Headers a caller may never set on a forwarded request: credentials, routing and framing. */
export const FORBIDDEN_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'host',
  'cookie',
  'set-cookie',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'x-api-key',
  'x-auth-token',
])

const ALWAYS_USEFUL = ['content-type', 'location', 'retry-after', 'link', 'etag', 'last-modified']

/** The response headers worth returning: content and paging, rate limits, and the platform's list. */
export function pickUsefulHeaders(
  headers: Record<string, string>,
  platformHeaders: string[],
): Record<string, string> {
  const wanted = new Set([...ALWAYS_USEFUL, ...platformHeaders.map((h) => h.toLowerCase())])
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (wanted.has(name) || name.includes('rate-limit') || name.includes('ratelimit')) out[name] = value
  }
  return out
}
