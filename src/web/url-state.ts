// Pure helpers for reading and writing the little bits of state kept in the address bar.

export interface ConnectResult {
  connected?: string
  error?: { message: string; code?: string; troubleshooting: string[]; applies: number[] }
}

/**
 * Reads what the OAuth callback sends back: `?connected=<id>`, or `?error=<message>&code=<code>`
 * with optional `troubleshooting=<JSON array of rules>` and `applies=<JSON array of rule indexes>`.
 */
export function parseConnectResult(search: string): ConnectResult {
  const params = new URLSearchParams(search)
  const result: ConnectResult = {}
  const connected = params.get('connected')
  if (connected) result.connected = connected
  const error = params.get('error')
  if (error !== null) {
    const troubleshooting = parseTroubleshooting(params.get('troubleshooting'))
    result.error = {
      message: error.trim() || 'The connection was not completed.',
      troubleshooting,
      applies: parseApplies(params.get('applies'), troubleshooting.length),
    }
    const code = params.get('code')
    if (code) result.error.code = code
  }
  return result
}

export function parseTroubleshooting(raw: string | null): string[] {
  if (!raw || !raw.trim()) return []
  try {
    const parsed: unknown = JSON.parse(raw)
    if (Array.isArray(parsed))
      return parsed.filter((s): s is string => typeof s === 'string' && s.trim() !== '')
    if (typeof parsed === 'string') return parsed.trim() ? [parsed] : []
    return []
  } catch {
    // Not JSON: show the text as a single rule rather than losing it.
    return [raw]
  }
}

/** Indexes of the troubleshooting rules known to apply; anything malformed is ignored. */
export function parseApplies(raw: string | null, ruleCount: number): number[] {
  if (!raw) return []
  try {
    const parsed: unknown = JSON.parse(raw)
    if (!Array.isArray(parsed)) return []
    return parsed.filter((n): n is number => Number.isInteger(n) && n >= 0 && n < ruleCount)
  } catch {
    return []
  }
}

/** Only same-origin paths may be used as a post-sign-in destination (no `//host` or `https:`). */
export function safeNextPath(next: string | null | undefined, fallback = '/integrations'): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return fallback
  if ([...next].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return fallback
  if (next === '/login' || next.startsWith('/login?') || next.startsWith('/login#')) return fallback
  return next
}

/** Builds `path?query`, dropping empty values. */
export function withQuery(path: string, query: Record<string, string | undefined | null>): string {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v)
  const qs = params.toString()
  return qs ? `${path}?${qs}` : path
}
