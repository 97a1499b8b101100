import {
  InsertQueryNode,
  ValuesNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
} from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Users } from '../access/users.ts'
import { openStore, type Store } from '../store/database.ts'
import { DeliveryLog, KEPT_PER_SOURCE, RECORDS_PER_STATEMENT } from './delivery-log.ts'

/** Counts the rows of each insert into the delivery log, as the statements are sent. */
class InsertSizes implements KyselyPlugin {
  readonly sizes: number[] = []
  transformQuery({ node }: PluginTransformQueryArgs) {
    if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'trigger_deliveries') {
      if (node.values && ValuesNode.is(node.values)) this.sizes.push(node.values.values.length)
    }
    return node
  }
  async transformResult({ result }: PluginTransformResultArgs) {
    return result
  }
}

describe('delivery log', () => {
  let store: Store
  let userId: string
  beforeAll(async () => {
    store = await openStore({ memory: true })
    userId = (await new Users(store.db).create({ email: 'log@example.test', plan: 'free' })).id
  })
  afterAll(async () => {
    await store.close()
  })

  it('writes a burst of records in statements of a bounded size, so it never holds the store long', async () => {
    const inserts = new InsertSizes()
    const log = new DeliveryLog(store.db.withPlugin(inserts))
    // Three sources, each under what the ring keeps: every record is written.
    const burst = RECORDS_PER_STATEMENT * 2 + 7
    for (let i = 0; i < burst; i++)
      log.record({ source: `webhook:wh_burst${i % 3}`, userId, outcome: 'accepted' })
    await log.flush()

    expect(inserts.sizes.reduce((a, b) => a + b, 0)).toBe(burst)
    expect(Math.max(...inserts.sizes)).toBeLessThanOrEqual(RECORDS_PER_STATEMENT)
  })

  it("writes only what the ring keeps of a source's burst: its newest records", async () => {
    const inserts = new InsertSizes()
    const log = new DeliveryLog(store.db.withPlugin(inserts))
    const burst = KEPT_PER_SOURCE * 4 + 3
    for (let i = 0; i < burst; i++)
      log.record({
        source: i % 50 === 0 ? 'webhook:wh_quiet' : 'webhook:wh_loud',
        userId,
        outcome: 'accepted',
        eventKey: String(i),
      })
    await log.flush()

    const quiet = Math.ceil(burst / 50)
    expect(inserts.sizes.reduce((a, b) => a + b, 0)).toBe(KEPT_PER_SOURCE + quiet)
    const loud = await log.recent(['webhook:wh_loud'], 1_000)
    const newest = Array.from({ length: burst }, (_, i) => i)
      .filter((i) => i % 50 !== 0)
      .slice(-KEPT_PER_SOURCE)
      .map(String)
    // Records of one millisecond have ids in no particular order: compared as a set.
    expect(loud.map((r) => r.event_key).sort()).toEqual(newest.sort())
    expect(await log.recent(['webhook:wh_quiet'], 1_000)).toHaveLength(quiet)
  })

  it("keeps every other owner's records when one owner was removed after their delivery was answered", async () => {
    const users = new Users(store.db)
    const gone = (await users.create({ email: 'gone@example.test', plan: 'free' })).id
    const errors: unknown[] = []
    const log = new DeliveryLog(store.db, (err) => errors.push(err))
    // More than one statement's worth over two sources (each keeps its newest 100), the removed
    // owner's record in the second statement.
    const sources = ['webhook:wh_kept1', 'webhook:wh_kept2']
    for (let i = 0; i < RECORDS_PER_STATEMENT + 10; i++)
      log.record({ source: sources[i % 2]!, userId, outcome: 'accepted' })
    log.record({ source: 'webhook:wh_gone', userId: gone, outcome: 'refused', reason: 'gone' })
    log.record({ source: sources[0]!, userId, outcome: 'accepted', eventKey: 'after' })
    await store.db.deleteFrom('users').where('id', '=', gone).execute()
    await log.flush()

    expect(errors).toEqual([])
    const kept = await log.recent(sources, 1_000)
    expect(kept).toHaveLength(RECORDS_PER_STATEMENT + 11)
    expect(kept.filter((r) => r.event_key === 'after')).toHaveLength(1)
    expect(await log.recent(['webhook:wh_gone'])).toEqual([])

    // A write of the removed owner's records alone writes nothing, and is no error either.
    const later = (await users.create({ email: 'later@example.test', plan: 'free' })).id
    log.record({ source: 'webhook:wh_later', userId: later, outcome: 'refused', reason: 'gone' })
    await store.db.deleteFrom('users').where('id', '=', later).execute()
    await log.flush()
    expect(errors).toEqual([])
  })
})
