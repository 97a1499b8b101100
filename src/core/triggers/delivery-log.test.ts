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
import { DeliveryLog, RECORDS_PER_STATEMENT } from './delivery-log.ts'

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
    const burst = RECORDS_PER_STATEMENT * 2 + 7
    for (let i = 0; i < burst; i++) log.record({ source: 'webhook:wh_burst', userId, outcome: 'accepted' })
    await log.flush()

    expect(inserts.sizes.reduce((a, b) => a + b, 0)).toBe(burst)
    expect(Math.max(...inserts.sizes)).toBeLessThanOrEqual(RECORDS_PER_STATEMENT)
  })
})
