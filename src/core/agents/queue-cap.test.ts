import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PLAN_LIMITS } from '../access/plans.ts'
import { Users, type User } from '../access/users.ts'
import { newId } from '../ids.ts'
import { openStore, type Store } from '../store/database.ts'
import { QueueCap } from './queue-cap.ts'

// Issue 22, section 2: the runs one owner may have waiting are capped by plan, with a clear answer.
describe('the cap on waiting runs', () => {
  let store: Store
  let user: User
  let agentId: string

  beforeAll(async () => {
    store = await openStore({ memory: true })
    user = await new Users(store.db).create({ email: 'cap@example.test' })
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
    const other = await new Users(store.db).create({ email: 'cap-other@example.test' })
    expect(await queue.refusal(other)).toBeNull()
  })
})
