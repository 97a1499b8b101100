import type { Services } from '../../services.ts'
import { accountsOf, fingerprintOf } from './accounts.ts'

/** How often an open stream checks anyway, in case the change feed lost a notice (it can, while its database connection is down). */
const RECHECK_MS = 60_000

interface Watcher {
  check(): void
}

/**
 * Tells open MCP streams when their caller's tool list changed: an integration connected,
 * disconnected or deleted, on any instance (the store's change feed reaches every process). Token
 * refreshes are announced on the same feed; comparing the listing's accounts keeps them silent.
 */
export class ListChanges {
  private readonly watchers = new Set<Watcher>()

  constructor(private readonly services: Services) {
    services.store.changes.subscribe((kind) => {
      if (kind === 'integration') for (const watcher of this.watchers) watcher.check()
    })
  }

  /** Calls `changed` whenever the user's listing differs from the one it had when watching began. */
  async watch(userId: string, changed: () => void): Promise<() => void> {
    const current = async () => fingerprintOf(await accountsOf(this.services.integrations, userId))
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
        })().finally(() => { running = undefined })
      },
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
