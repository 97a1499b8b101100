import { describe, expect, it } from 'vitest'
import { Integrations } from '../../src/core/connections/integrations.ts'
import { LocalChangeFeed } from '../../src/core/store/changes.ts'
import type { Store } from '../../src/core/store/database.ts'
import { acceptEvents } from '../../src/core/triggers/accept.ts'
import { TriggerRoutes } from '../../src/core/triggers/routes.ts'
import { tableReads, type SeededStore } from '../helpers/many-subscriptions.ts'
import { STORES } from '../helpers/engine.ts'
import { seededStoreForSuite } from '../helpers/seeded-store.ts'

// Issue 22, section 7: with 1,000 integrations and 10,000 active subscriptions the intake's lookups
// read every subscription. What each one costs is counted by the database itself (rows and scans per
// table in the transaction), never timed, and must not depend on the size of the store. No ANALYZE
// runs: the store is as the rows left it.

describe.each(STORES)('costs at any size on $name', ({ open }) => {
  let store: Store
  let seed: SeededStore
  seededStoreForSuite(open, 'costs', (seeded) => ({ store, seed } = seeded))

  it('finds a webhook’s subscriptions by the webhook, reading only its own rows', async () => {
    let found = 0
    const reads = await tableReads(store.db, async (trx) => {
      const route = await new TriggerRoutes(trx, new LocalChangeFeed()).byToken(seed.token)
      found = route?.subscriptions.length ?? 0
    })
    expect(found).toBe(10)
    for (const table of ['subscriptions', 'subscription_webhooks', 'agents', 'agent_versions', 'webhooks'])
      expect({ table, ...reads[table] }).toMatchObject({ table, seqScans: 0 })
    expect(reads.subscriptions!.indexRows).toBeLessThanOrEqual(10)
    expect(reads.agent_versions!.indexRows).toBeLessThanOrEqual(1)
  })

  it('reads a route once for a burst of deliveries to it (single flight)', async () => {
    const reads = await tableReads(store.db, async (trx) => {
      const routes = new TriggerRoutes(trx, new LocalChangeFeed())
      const all = await Promise.all(Array.from({ length: 40 }, () => routes.byToken(seed.token)))
      expect(new Set(all).size).toBe(1)
    })
    expect(reads.webhooks!.indexRows).toBe(1)
    expect(reads.subscriptions!.indexRows).toBeLessThanOrEqual(10)
  })

  it('does not join a lookup that began before a change was announced', async () => {
    const routes = new TriggerRoutes(store.db, new LocalChangeFeed())
    const first = routes.byToken(seed.token)
    await routes.changed()
    const second = routes.byToken(seed.token)
    const [a, b] = await Promise.all([first, second])
    expect(a).not.toBe(b)
  })

  it('accepts a batch of events without reading the whole agents table', async () => {
    const reads = await tableReads(store.db, (trx) =>
      acceptEvents(trx, [
        {
          source: `webhook:${seed.webhookId}`,
          candidate: { dedupeKey: 'evt-costs-1', type: 'createCard', raw: {} },
          matches: [
            {
              subscriptionId: `big_sub_1_1`,
              userId: seed.userId,
              agentId: seed.agentId,
              event: { card: { name: 'A card' } },
              inputs: {},
            },
          ],
        },
      ]),
    )
    expect(reads.runs).toBeDefined()
    expect({ table: 'agents', ...reads.agents }).toMatchObject({ table: 'agents', seqScans: 0 })
    // One probe for the run's agent version, one for the foreign key of the run it inserts.
    expect(reads.agents!.indexRows).toBeLessThanOrEqual(2)
  })

  it.each([['its id', 'big_int_500']])(
    'finds one of 1,000 integrations by %s, reading only that one (every step and every poll)',
    async (_by, ref) => {
      let found = ''
      const reads = await tableReads(store.db, async (trx) => {
        found = (await new Integrations(trx).resolve(seed.userId, 'trello', ref)).id
      })
      expect(found).toBe('big_int_500')
      expect({ table: 'integrations', ...reads.integrations }).toMatchObject({ seqScans: 0 })
      expect(reads.integrations!.indexRows).toBeLessThanOrEqual(1)
    },
  )

  it('names only the integrations an agent or run uses (GET /v1/agents/{id}, GET /v1/runs/{id})', async () => {
    let names = new Map<string, string>()
    const reads = await tableReads(store.db, async (trx) => {
      names = await new Integrations(trx).accountNames(seed.userId, ['big_int_7', 'big_int_7', 'big_int_9'])
    })
    expect(Object.fromEntries(names)).toEqual({ big_int_7: 'account7', big_int_9: 'account9' })
    expect(reads.integrations!.indexRows).toBeLessThanOrEqual(2)
    expect(reads.integrations!.seqScans).toBe(0)
  })
})
