/** How many requests a sandbox's log keeps (oldest dropped first). */
export const MAX_LOGGED_REQUESTS = 1000

type RawHeaders = Record<string, string | string[] | undefined>

/**
 * Headers fit for a sandbox's request log: secrets never reach it. Authorization keeps its scheme
 * (alone, or followed by "[redacted]"), cookies are hidden.
 */
export function redactHeaders(headers: RawHeaders, authorization: 'scheme' | 'scheme-redacted' = 'scheme-redacted'): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue
    const value = Array.isArray(raw) ? raw.join(', ') : raw
    const lower = name.toLowerCase()
    if (lower === 'authorization' || lower === 'proxy-authorization') {
      const scheme = value.trim().split(/\s+/)[0] ?? ''
      out[lower] = authorization === 'scheme' ? scheme : `${scheme} [redacted]`
    } else if (lower === 'cookie') out[lower] = '[redacted]'
    else out[lower] = value
  }
  return out
}

/** The stored entries of a request log: numbered, bounded, handed out as copies. */
export class BoundedLog<T extends { id: number }> {
  private entries: T[] = []
  private nextId = 1

  add(entry: Omit<T, 'id'>): void {
    this.entries.push({ id: this.nextId++, ...entry } as T)
    if (this.entries.length > MAX_LOGGED_REQUESTS) this.entries.splice(0, this.entries.length - MAX_LOGGED_REQUESTS)
  }

  /** Oldest first; `limit` keeps the most recent N of those matching. */
  list(limit?: number, matches: (entry: T) => boolean = () => true): T[] {
    const matching = this.entries.filter(matches)
    const limited = limit !== undefined ? matching.slice(Math.max(0, matching.length - limit)) : matching
    return limited.map((e) => ({ ...e }))
  }

  clear(): void {
    this.entries = []
  }
}
