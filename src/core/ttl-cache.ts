/**
 * A small in-process cache with a time limit. Used for hot-path reads (API key → user, integration
 * lookups) that change rarely: writes in this process invalidate at once, and the time limit bounds
 * how long another instance's write can go unseen.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>()

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key)
      return undefined
    }
    return entry.value
  }

  /** How long the entry has left before it expires, in ms; 0 when there is none. */
  remainingMs(key: string): number {
    const entry = this.entries.get(key)
    return entry ? Math.max(0, entry.expiresAt - Date.now()) : 0
  }

  set(key: string, value: V): void {
    // Bounded: when full, drop the oldest entry (Map keeps insertion order).
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs })
  }

  /** Drops every entry whose value matches. */
  deleteWhere(predicate: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value)) this.entries.delete(key)
  }

  clear(): void {
    this.entries.clear()
  }
}
