import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { Agents } from '../../src/core/agents/agents.ts'
import { countUpTo, Integrations } from '../../src/core/connections/integrations.ts'
import { RemoteWebhooks } from '../../src/core/triggers/remote-webhooks.ts'
import { ToolRegistry } from '../../src/core/tools/catalog.ts'
import { afterPosition, createdMicros, encodeCursor, decodeCursor } from '../../src/core/paging.ts'
import type { Db } from '../../src/core/store/database.ts'
import type { Store } from '../../src/core/store/database.ts'
import { acceptEvents } from '../../src/core/triggers/accept.ts'
import { tableReads, type SeededStore } from '../helpers/many-subscriptions.ts'
import { STORES } from '../helpers/engine.ts'
import { seededStoreForSuite } from '../helpers/seeded-store.ts'

// Issue 22, section 7: lists and writes that slowed as the store grew. With 1,000 integrations and
// 10,000 subscriptions, what each query reads is asserted from the database itself (its plan, or the
// rows and scans it counted in the transaction), never timed. No ANALYZE runs: the store is as the
// rows left it (migration 0013's indexes must be chosen on those statistics).

/** The plan PostgreSQL chose for a query, as its node types and the indexes they read. */
async function planOf(db: Db, query: { sql: string; parameters: readonly unknown[] }) {
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`explain (format json) ${sql.raw(
    // Parameters are inlined by position: EXPLAIN cannot take them through Kysely's sql tag here.
    query.sql.replace(/\$(\d+)/g, (_, n) => literal(query.parameters[Number(n) - 1])),
  )}`.execute(db)
  const raw = rows[0]!['QUERY PLAN']
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>
  const nodes: PlanNode[] = []
  const walk = (node: PlanNode) => {
    nodes.push(node)
    for (const child of node.Plans ?? []) walk(child)
  }
  walk(plan[0]!.Plan)
  return {
    seqScans: nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']),
    indexes: nodes.map((n) => n['Index Name']).filter(Boolean),
  }
}
interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  Plans?: PlanNode[]
}
const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`)

describe.each(STORES)('lists and writes at any size on $name', ({ open }) => {
  let store: Store
  let seed: SeededStore
  seededStoreForSuite(open, 'lists', (seeded) => ({ store, seed } = seeded))

  it('pages integrations by one index range, reading a page of rows (GET /v1/integrations)', async () => {
    const integrations = new Integrations(store.db)
    const first = await integrations.page(seed.userId, { limit: '50' })
    expect(first.integrations).toHaveLength(50)
    const reads = await tableReads(store.db, async (trx) => {
      const next = await new Integrations(trx).page(seed.userId, { limit: '50', cursor: first.next_cursor })
      expect(next.integrations).toHaveLength(50)
      expect(next.integrations[0]!.id).not.toBe(first.integrations[0]!.id)
    })
    expect({ table: 'integrations', ...reads.integrations }).toMatchObject({ seqScans: 0 })
    expect(reads.integrations!.indexRows).toBeLessThanOrEqual(51)
  })

  it.each([
    ['agents', 'desc'],
    ['subscriptions', 'asc'],
  ] as const)('pages %s by its (user_id, created_at, id) index', async (table, direction) => {
    const position = decodeCursor(
      encodeCursor({ micros: String(Date.now() * 1000), id: 'zzz' }, 'scope'),
      'scope',
    )
    const query = store.db
      .selectFrom(table)
      .selectAll(table)
      .select(createdMicros(table).as('created_us'))
      .where(`${table}.user_id`, '=', seed.userId)
      .where(afterPosition(table, position, direction))
      .orderBy(`${table}.created_at`, direction)
      .orderBy(`${table}.id`, direction)
      .limit(51)
      .compile()
    const plan = await planOf(store.db, query)
    expect(plan.seqScans).toEqual([])
    expect(plan.indexes).toContain(`${table}_by_user_time`)
  })

  it.each([
    ['agent', 'agent_id', 'big_agt_7', 'subscriptions_by_agent'],
    ['integration', 'integration_id', 'big_int_7', 'subscriptions_by_integration'],
  ] as const)(
    "reads an %s's subscriptions by index (Triggers tab, deleting, disconnecting)",
    async (_what, column, value, index) => {
      const plan = await planOf(
        store.db,
        store.db.selectFrom('subscriptions').select('id').where(column, '=', value).compile(),
      )
      expect(plan.seqScans).toEqual([])
      expect(plan.indexes).toContain(index)
    },
  )

  it("counts a user's subscriptions (the plan's cap, on every create) without reading everyone's", async () => {
    const plan = await planOf(
      store.db,
      store.db
        .selectFrom('subscriptions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', 'usr_someone_else')
        .compile(),
    )
    expect(plan.seqScans).toEqual([])
  })

  it('finds an integration by its account name through the account-name index', async () => {
    const plan = await planOf(
      store.db,
      store.db
        .selectFrom('integrations')
        .selectAll()
        .where('user_id', '=', seed.userId)
        .where('platform', '=', 'trello')
        .where('account_name', '=', 'account500')
        .compile(),
    )
    expect(plan.seqScans).toEqual([])
    expect(plan.indexes).toContain('integrations_by_account_name')
    const reads = await tableReads(store.db, async (trx) => {
      expect((await new Integrations(trx).resolve(seed.userId, 'trello', 'account500')).id).toBe(
        'big_int_500',
      )
    })
    expect(reads.integrations!.seqScans).toBe(0)
    expect(reads.integrations!.indexRows).toBeLessThanOrEqual(2)
  })

  it('marks last_event_at on the batch’s subscriptions without scanning them all (accept_events)', async () => {
    const reads = await tableReads(store.db, (trx) =>
      acceptEvents(trx, [
        {
          source: `webhook:${seed.webhookId}`,
          candidate: { dedupeKey: 'evt-lists-1', type: 'createCard', raw: {} },
          matches: [1, 2, 3].map((j) => ({
            subscriptionId: `big_sub_1_${j}`,
            userId: seed.userId,
            agentId: seed.agentId,
            event: { card: { name: 'A card' } },
            inputs: {},
          })),
        },
      ]),
    )
    expect({ table: 'subscriptions', ...reads.subscriptions }).toMatchObject({ seqScans: 0 })
    const touched = await store.db
      .selectFrom('subscriptions')
      .select('id')
      .where('last_event_at', 'is not', null)
      .execute()
    expect(touched.map((r) => r.id).sort()).toEqual(['big_sub_1_1', 'big_sub_1_2', 'big_sub_1_3'])
  })

  // Issue 22, §7, "writes slow as the store grows": each read a save, an activation, a subscription's
  // view or an MCP call makes, counted by the database in rows, on statistics as the rows left them.
  const rowsRead = (r: { indexRows: number; seqRows: number } | undefined) =>
    (r?.indexRows ?? 0) + (r?.seqRows ?? 0)

  it("reads a page of subscriptions' webhooks by key, never the whole webhooks table", async () => {
    const reads = await tableReads(store.db, async (trx) => {
      const hooks = new RemoteWebhooks(
        { db: trx } as never,
        ...([] as unknown as [never, never, never, never, never, never]),
      )
      const found = await hooks.forSubscriptions(['big_sub_7_1', 'big_sub_7_2', 'big_sub_500_3'])
      expect(found.get('big_sub_7_1')!.map((h) => h.id)).toEqual(['big_whk_7'])
      expect(found.get('big_sub_500_3')!.map((h) => h.id)).toEqual(['big_whk_500'])
    })
    expect({ table: 'webhooks', ...reads.webhooks }).toMatchObject({ seqScans: 0 })
    expect(rowsRead(reads.webhooks)).toBeLessThanOrEqual(3)
    expect({ table: 'subscription_webhooks', ...reads.subscription_webhooks }).toMatchObject({ seqScans: 0 })
  })

  it("counts a user's integrations only up to the plan's cap when one is connected", async () => {
    const reads = await tableReads(store.db, async (trx) => {
      // 1,000 held against the Pro plan's 50: refused, having read 50 of them.
      expect(await countUpTo(trx, seed.userId, 50)).toBe(50)
    })
    expect(rowsRead(reads.integrations)).toBeLessThanOrEqual(50)
  })

  it('offers a bounded number of accounts per platform (MCP listings and calls, model calls)', async () => {
    const reads = await tableReads(store.db, async (trx) => {
      const { accounts, more } = await new Integrations(trx).offered(seed.userId, 'trello', 21)
      expect(accounts).toHaveLength(21)
      expect(more).toBe(true)
    })
    expect({ table: 'integrations', ...reads.integrations }).toMatchObject({ seqScans: 0 })
    expect(rowsRead(reads.integrations)).toBeLessThanOrEqual(30)
  })

  it("finds a run token's integrations by id and by name without reading the user's others", async () => {
    const reads = await tableReads(store.db, async (trx) => {
      const ids = await new Integrations(trx).idsNamed(
        seed.userId,
        ['trello', 'zendesk'],
        ['big_int_3', 'account700', 'nobody'],
      )
      expect([...ids].sort()).toEqual(['big_int_3', 'big_int_700'])
    })
    expect({ table: 'integrations', ...reads.integrations }).toMatchObject({ seqScans: 0 })
    expect(rowsRead(reads.integrations)).toBeLessThanOrEqual(4)
  })

  it('finds an agent by name through its (user_id, name) index (MCP start_agent_run)', async () => {
    const reads = await tableReads(store.db, async (trx) => {
      const agents = new Agents(trx, new ToolRegistry([]), new Integrations(trx), {} as never)
      expect((await agents.find(seed.userId, 'agent 600')).id).toBe('big_agt_600')
      expect((await agents.find(seed.userId, 'big_agt_601')).id).toBe('big_agt_601')
      await expect(agents.find(seed.userId, 'no such agent')).rejects.toMatchObject({ code: 'not_found' })
    })
    expect({ table: 'agents', ...reads.agents }).toMatchObject({ seqScans: 0 })
    expect(rowsRead(reads.agents)).toBeLessThanOrEqual(8)
  })
})
