import type { Services } from '../../services.ts'
import { accountsOf, fingerprintOf } from './accounts.ts'

/** How often an open stream checks anyway, in case the change feed lost a notice (it can, while its database connection is down). */
const RECHECK_MS = 60_000

interface Watcher {
  check(): void
  /** The API key the stream was opened with, if any, and what to do once it is deleted. */
  keyId?: string
  revoked?: () => void
}

/**
 * Tells open MCP streams when their caller's tool list changed: an integration connected,
 * disconnected or deleted, on any instance (the store's change feed reaches every process). Token
 * refreshes are announced on the same feed; comparing the listing's accounts keeps them silent.
 */
export class ListChanges {
  private readonly watchers = new Set<Watcher>()

  constructor(private readonly services: Services) {
    services.store.changes.subscribe((kind, id) => {
      if (kind === 'integration') for (const watcher of this.watchers) watcher.check()
      if (kind === 'api_key')
        for (const watcher of this.watchers) if (watcher.keyId === id) watcher.revoked?.()
    })
  }

  /**
   * Calls `changed` whenever the user's listing differs from the one it had when watching began, and
   * `revoked` when the API key the stream was opened with is deleted (or its user removed), on any instance.
   */
  async watch(
    userId: string,
    changed: () => void,
    key?: { id: string; stillValid: () => Promise<boolean>; revoked: () => void },
  ): Promise<() => void> {
    const current = async () =>
      fingerprintOf(
        await accountsOf(this.services.integrations, userId, this.services.registry.platformIds()),
      )
    let last = await current()
    let running: Promise<void> | undefined
    let again = false
    const watcher: Watcher = {
      check: () => {
        if (running) {
          again = true
          return
        }
        running = (async () => {
          do {
            again = false
            const now = await current().catch(() => last)
            if (now !== last) {
              last = now
              changed()
            }
          } while (again)
        })().finally(() => {
          running = undefined
        })
      },
    }
    if (key) {
      watcher.keyId = key.id
      // Announced for the key's user as a whole too (a plan change): end the stream only if the key is gone.
      watcher.revoked = () =>
        void key.stillValid().then(
          (valid) => {
            if (!valid) key.revoked()
          },
          () => {},
        )
    }
    this.watchers.add(watcher)
    const timer = setInterval(() => watcher.check(), RECHECK_MS)
    timer.unref()
    return () => {
      clearInterval(timer)
      this.watchers.delete(watcher)
    }
  }
}
