import { afterAll, beforeAll } from 'vitest'
import { openStore, type Store } from '../../src/core/store/database.ts'
import type { FreshStore } from './engine.ts'
import { seedManySubscriptions, type SeededStore } from './many-subscriptions.ts'

/**
 * For a suite of the size tests (issue 22 §7): a store of its own (one of engine.ts's STORES),
 * seeded with 1,000 integrations and 10,000 subscriptions before its tests, closed and dropped after
 * them. `take` receives the store and what was seeded.
 */
export function seededStoreForSuite(
  fresh: (tag: string) => Promise<FreshStore>,
  tag: string,
  take: (seeded: { store: Store; seed: SeededStore }) => void,
): void {
  let store: Store | undefined
  let scratch: FreshStore | undefined
  beforeAll(async () => {
    scratch = await fresh(tag)
    store = await openStore(scratch.databaseUrl ? { databaseUrl: scratch.databaseUrl } : { memory: true })
    take({ store, seed: await seedManySubscriptions(store.db, { integrations: 1_000, perWebhook: 10 }) })
  }, 120_000)
  afterAll(async () => {
    await store?.close()
    await scratch?.drop()
  })
}
