import type { KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Users } from '../src/core/access/users.ts'
import { Integrations } from '../src/core/connections/integrations.ts'
import { LocalChangeFeed } from '../src/core/store/changes.ts'
import { openStore, type Db, type Store } from '../src/core/store/database.ts'

// A change announced while a lookup is out must not be lost: the lookup may have read the row as it
// was before the change, so it is not cached (issue 9, §3.9). Each test holds its lookup's query
// result until the change has been announced, as another instance's disconnect would arrive.

/** A Db whose next query's result is held until `release()`. */
function holdingNextResult(db: Db) {
  let release!: () => void
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  let held = false
  let reachedResolve!: () => void
  const reached = new Promise<void>((resolve) => {
    reachedResolve = resolve
  })
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    async transformResult(args) {
      if (!held) {
        held = true
        reachedResolve()
        await released
      }
      return args.result
    },
  }
  return { db: db.withPlugin(plugin), reached, release }
}

let store: Store
beforeAll(async () => {
  store = await openStore({ memory: true })
})
afterAll(async () => {
  await store?.close()
})

async function aUser(): Promise<string> {
  const users = new Users(store.db)
  return (await users.create({ email: `u-${Math.random().toString(36).slice(2)}@example.test` })).id
}

describe('a change announced during a lookup', () => {
  it('an integration disconnected while it is being resolved is not cached as active', async () => {
    const userId = await aUser()
    const id = `int_${Math.random().toString(36).slice(2)}`
    await store.db
      .insertInto('integrations')
      .values({
        id,
        user_id: userId,
        platform: 'zendesk',
        external_id: id,
        account_name: id,
        status: 'active',
        fields: JSON.stringify({}),
        connected_with: 'authorization',
        credentials: 'sealed',
        expires_at: null,
        updated_at: new Date(),
      })
      .execute()
    const changes = new LocalChangeFeed()
    const held = holdingNextResult(store.db)
    const integrations = new Integrations(held.db, { changes })

    const lookup = integrations.resolve(userId, 'zendesk', id)
    await held.reached // the row has been read as active; its result is held
    // Another instance disconnects it and announces the change. (PGlite is one connection, held by
    // the held lookup, so the write itself lands once the lookup is done; the announcement is what
    // the race is about.)
    await changes.publish('integration', id)
    held.release()
    expect((await lookup).status).toBe('active') // read before the change: that is all it could know
    await store.db
      .updateTable('integrations')
      .set({ status: 'disconnected', credentials: null })
      .where('id', '=', id)
      .execute()

    const next = await integrations.resolve(userId, 'zendesk', id)
    expect(next.status).toBe('disconnected')
    expect(next.credentials).toBeNull()
  })

  it('an API key deleted while it is being authenticated is not cached', async () => {
    const userId = await aUser()
    const created = await new Users(store.db).createApiKey(userId)
    const changes = new LocalChangeFeed()
    const held = holdingNextResult(store.db)
    const users = new Users(held.db, { changes })

    const first = users.authenticateKey(created.key)
    await held.reached
    await changes.publish('api_key', created.id)
    held.release()
    expect((await first)?.keyId).toBe(created.id)
    await store.db.deleteFrom('api_keys').where('id', '=', created.id).execute()

    expect(await users.authenticateKey(created.key)).toBeUndefined()
  })
})
