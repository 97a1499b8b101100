import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PLAN_LIMITS } from '../access/plans.ts'
import { Users, type User } from '../access/users.ts'
import { newId } from '../ids.ts'
import { openStore, type Store } from '../store/database.ts'
import { QueueCap } from './queue-cap.ts'

// The store's tests run on PGlite, and again on PostgreSQL when TEST_DATABASE_URL is set.
const stores: Array<[string, () => Promise<Store>]> = [['pglite', () => openStore({ memory: true })]]
if (process.env.TEST_DATABASE_URL)
  stores.push(['postgres', () => openStore({ databaseUrl: process.env.TEST_DATABASE_URL! })])

// Issue 22, section 2: the runs one owner may have waiting are capped by plan, with a clear answer.
describe.each(stores)('the cap on waiting runs, on %s', (_name, open) => {
  let store: Store
  let user: User
  let agentId: string

  beforeAll(async () => {
    store = await open()
    user = await new Users(store.db).create({ email: `cap-${newId('u')}@example.test` })
    agentId = newId('agt')
    await store.db
      .insertInto('agents')
      .values({ id: agentId, user_id: user.id, name: 'cap', current_version: 1 })
      .execute()
  })
  afterAll(async () => store?.close())

  it("refuses past the plan's cap, naming the plan and the number, and counts only this owner's waiting runs", async () => {
    const cap = PLAN_LIMITS[user.plan].maxQueuedRuns
    const runs = (n: number, status: 'queued' | 'succeeded') =>
      Array.from({ length: n }, () => ({
        id: newId('run'),
        user_id: user.id,
        agent_id: agentId,
        agent_version: 1,
        started_by: 'api' as const,
        inputs: '{}',
        status,
      }))
    await store.db
      .insertInto('runs')
      .values(runs(cap - 2, 'queued'))
      .execute()
    await store.db.insertInto('runs').values(runs(50, 'succeeded')).execute() // finished runs do not count
    const queue = new QueueCap(store.db)
    expect(await queue.refusal(user)).toBeNull()
    expect(await queue.refusal(user)).toBeNull() // the second place left, counted in this process
    const full = await queue.refusal(user)
    expect(full?.code).toBe('queue_full')
    expect(full?.message).toContain(`the most the ${user.plan} plan allows (${cap.toLocaleString('en')})`)
    // Another owner's queue is its own.
    const other = await new Users(store.db).create({ email: `cap-other-${newId('u')}@example.test` })
    expect(await queue.refusal(other)).toBeNull()
  })
  it("keeps each owner's count of waiting runs with the rows, through every move into and out of the queue", async () => {
    const users = new Users(store.db)
    const owners = [
      await users.create({ email: `count-a-${newId('u')}@example.test` }),
      await users.create({ email: `count-b-${newId('u')}@example.test` }),
    ]
    const agents = owners.map(() => newId('agt'))
    await store.db
      .insertInto('agents')
      .values(owners.map((o, i) => ({ id: agents[i]!, user_id: o.id, name: 'count', current_version: 1 })))
      .execute()
    const run = (i: number, status: 'queued' | 'succeeded') => ({
      id: newId('run'),
      user_id: owners[i]!.id,
      agent_id: agents[i]!,
      agent_version: 1,
      started_by: 'api' as const,
      inputs: '{}',
      status,
    })
    const counted = async () => {
      const rows = await store.db.selectFrom('queued_run_counts').selectAll().execute()
      return owners.map((o) => Number(rows.find((r) => r.user_id === o.id)?.waiting ?? 0))
    }
    const actual = async () =>
      Promise.all(
        owners.map(async (o) => {
          const { n } = await store.db
            .selectFrom('runs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('user_id', '=', o.id)
            .where('status', '=', 'queued')
            .executeTakeFirstOrThrow()
          return Number(n)
        }),
      )
    // Both owners in one statement, and runs that are not waiting.
    await store.db
      .insertInto('runs')
      .values([run(0, 'queued'), run(0, 'queued'), run(0, 'queued'), run(1, 'queued'), run(0, 'succeeded')])
      .execute()
    expect(await counted()).toEqual([3, 1])
    // Claimed (out of the queue), put back (into it), ended, and an update that moves nothing.
    const ids = (
      await store.db
        .selectFrom('runs')
        .select('id')
        .where('user_id', '=', owners[0]!.id)
        .where('status', '=', 'queued')
        .execute()
    ).map((r) => r.id)
    await store.db.updateTable('runs').set({ status: 'running' }).where('id', 'in', ids.slice(0, 2)).execute()
    expect(await counted()).toEqual([1, 1])
    await store.db.updateTable('runs').set({ status: 'queued' }).where('id', '=', ids[0]!).execute()
    await store.db.updateTable('runs').set({ status: 'succeeded' }).where('id', '=', ids[1]!).execute()
    await store.db
      .updateTable('runs')
      .set({ inputs: '{"again":1}' })
      .where('user_id', '=', owners[0]!.id)
      .execute()
    expect(await counted()).toEqual([2, 1])
    // Deleted while waiting.
    await store.db.deleteFrom('runs').where('id', '=', ids[0]!).execute()
    expect(await counted()).toEqual(await actual())
    expect(await counted()).toEqual([1, 1])
    // The cap reads the kept count.
    expect(
      await new QueueCap(store.db).refusal(owners[1]!, PLAN_LIMITS[owners[1]!.plan].maxQueuedRuns - 1),
    ).toBeNull()
    expect(
      (await new QueueCap(store.db).refusal(owners[1]!, PLAN_LIMITS[owners[1]!.plan].maxQueuedRuns))?.code,
    ).toBe('queue_full')
    // A user removed takes its count with it.
    await store.db.deleteFrom('users').where('id', '=', owners[0]!.id).execute()
    expect(
      await store.db
        .selectFrom('queued_run_counts')
        .selectAll()
        .where('user_id', '=', owners[0]!.id)
        .execute(),
    ).toEqual([])
  })
})
