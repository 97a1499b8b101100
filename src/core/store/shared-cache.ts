import { TtlCache } from '../ttl-cache.ts'
import { LocalChangeFeed, type ChangeFeed } from './changes.ts'

export interface SharedCacheOptions {
  /** How processes sharing the store tell each other what changed; this process alone if unset. */
  changes?: ChangeFeed
  ttlMs?: number
}

/**
 * An in-process TtlCache of rows every process on the store may hold: a process that changes a row
 * announces it (`changed`), and every process drops its copies at once. The time limit remains the
 * bound when an announcement is lost.
 */
export class SharedCache<V> {
  private readonly entries: TtlCache<V>
  private readonly changes: ChangeFeed

  /** `kind` names the rows in announcements; `idOf` says which row a cached value is a copy of. */
  constructor(
    private readonly kind: string,
    private readonly idOf: (value: V) => string,
    defaultTtlMs: number,
    options: SharedCacheOptions = {},
  ) {
    this.entries = new TtlCache(options.ttlMs ?? defaultTtlMs)
    this.changes = options.changes ?? new LocalChangeFeed()
    this.changes.subscribe((kind, id) => {
      if (kind === this.kind) this.forget(id)
    })
  }

  /**
   * Bumped by every invalidation. A lookup that started before an invalidation may have read the
   * row as it was before the change, so it is not cached (see `set`).
   */
  private invalidations = 0

  get(key: string): V | undefined {
    return this.entries.get(key)
  }

  /** How long this process's copy has left before it expires, in ms; 0 when there is none. */
  remainingMs(key: string): number {
    return this.entries.remainingMs(key)
  }

  /** Take this before reading the row from storage, and give it to `set`. */
  generation(): number {
    return this.invalidations
  }

  /** Caches a row read since `generation`, unless a change was announced while it was being read. */
  set(key: string, value: V, generation: number): void {
    if (generation === this.invalidations) this.entries.set(key, value)
  }

  /** Drops this process's copies of the row. */
  forget(id: string): void {
    this.invalidations++
    this.entries.deleteWhere((value) => this.idOf(value) === id)
  }

  /** This process drops its copies at once; every other process sharing the store, on the announcement. */
  async changed(id: string): Promise<void> {
    this.forget(id)
    await this.changes.publish(this.kind, id)
  }
}
