import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PLAN_LIMITS } from '../access/plans.ts'
import { UserAdmin } from '../access/admin.ts'
import { Users, type User } from '../access/users.ts'
import { Integrations } from '../connections/integrations.ts'
import type { Revoker } from '../connections/revoke.ts'
import { newId } from '../ids.ts'
import { openStore, type Db, type Store } from '../store/database.ts'
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
    const actual = async () => Promise.all(owners.map((o) => queuedRunsOf(store.db, o.id)))
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

  // The counts are kept by triggers on runs (migration 0021): a user's removal, which deletes their
  // runs and their count by cascade, must not meet those triggers fired by the user's runs moving at
  // the same moment (a run queued, claimed, ended) with an error, an orphan count or another owner's
  // count gone wrong. Real concurrency on PostgreSQL: each loop below is its own connection.
  it("removing a user while their runs move through the queue succeeds and leaves every other owner's count exact", async () => {
    const users = new Users(store.db)
    // No integration is held, so the removal revokes nothing and never calls the revoker.
    const admin = new UserAdmin(store.db, users, new Integrations(store.db), {} as Revoker)
    // Loops of the removed user's runs that the removal cut short: the removal met them mid-way.
    let cut = 0
    for (let round = 0; round < 5; round++) {
      const [going, staying] = [
        await users.create({ email: `going-${newId('u')}@example.test` }),
        await users.create({ email: `staying-${newId('u')}@example.test` }),
      ]
      const agents = [newId('agt'), newId('agt')]
      await store.db
        .insertInto('agents')
        .values([
          { id: agents[0]!, user_id: going.id, name: 'going', current_version: 1 },
          { id: agents[1]!, user_id: staying.id, name: 'staying', current_version: 1 },
        ])
        .execute()
      const run = (owner: User, agentId: string) => ({
        id: newId('run'),
        user_id: owner.id,
        agent_id: agentId,
        agent_version: 1,
        started_by: 'api' as const,
        inputs: '{}',
        status: 'queued' as const,
      })
      const unexpected: unknown[] = []
      // Queue four runs, claim two, end one, put one back: every move the triggers count.
      const churn = async (owner: User, agentId: string) => {
        for (let i = 0; i < 40; i++) {
          try {
            const batch = Array.from({ length: 4 }, () => run(owner, agentId))
            await store.db.insertInto('runs').values(batch).execute()
            const ids = batch.map((r) => r.id)
            await store.db
              .updateTable('runs')
              .set({ status: 'running' })
              .where('id', 'in', ids.slice(0, 2))
              .execute()
            await store.db
              .updateTable('runs')
              .set({ status: 'succeeded' })
              .where('id', '=', ids[0]!)
              .execute()
            await store.db.updateTable('runs').set({ status: 'queued' }).where('id', '=', ids[1]!).execute()
          } catch (err) {
            // A run of the user being removed meets the foreign key once the removal commits (an
            // insert that waited on it included); nothing else may fail.
            if (owner === going && /foreign key/i.test(String(err))) return void cut++
            unexpected.push(err)
          }
        }
      }
      const removal = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 5 + round * 5))
        await admin.remove(going.id)
      })()
      await Promise.all([
        churn(going, agents[0]!),
        churn(going, agents[0]!),
        churn(staying, agents[1]!),
        removal,
      ])
      expect(unexpected).toEqual([])
      expect(await users.get(going.id)).toBeUndefined()
      const counts = await store.db
        .selectFrom('queued_run_counts')
        .selectAll()
        .where('user_id', 'in', [going.id, staying.id])
        .execute()
      expect(counts.map((c) => [c.user_id, Number(c.waiting)])).toEqual([
        [staying.id, await queuedRunsOf(store.db, staying.id)],
      ])
    }
    expect(cut).toBeGreaterThan(0)
  }, 120_000)
})

/** An owner's waiting runs, counted from the rows themselves (what the kept count must equal). */
async function queuedRunsOf(db: Db, userId: string): Promise<number> {
  const { n } = await db
    .selectFrom('runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('status', '=', 'queued')
    .executeTakeFirstOrThrow()
  return Number(n)
}
