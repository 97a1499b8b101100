import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Users } from '../access/users.ts'
import { newId } from '../ids.ts'
import { openStore, type Store } from '../store/database.ts'
import { RunState, type Settled } from './run-state.ts'

// A run's end and its call-less timeline entries are one write, and only the worker holding the run
// makes it (docs/architecture.md, "Runs are their own queue": End, Lease).
describe('ending a run', () => {
  let store: Store
  let state: RunState
  let userId: string
  let agentId: string

  beforeAll(async () => {
    store = await openStore({ memory: true })
    state = new RunState(store.db)
    userId = (await new Users(store.db).create({ email: 'ends@example.test' })).id
    agentId = newId('agt')
    await store.db
      .insertInto('agents')
      .values({ id: agentId, user_id: userId, name: 'ends', current_version: 1 })
      .execute()
  })
  afterAll(async () => store?.close())

  const heldBy = async (holder: string) => {
    const id = newId('run')
    await store.db
      .insertInto('runs')
      .values({
        id,
        user_id: userId,
        agent_id: agentId,
        agent_version: 1,
        started_by: 'api',
        inputs: '{}',
        status: 'running',
        lease_holder: holder,
      })
      .execute()
    return id
  }
  const skipped = (seq: number): Settled => ({
    step: { seq, key: `s${seq}`, kind: 'step', toolId: 'trello.get_card' },
    end: { status: 'skipped' },
  })
  const lease = (holder: string) => ({ holder, held: () => true })
  const timeline = (runId: string) =>
    store.db
      .selectFrom('run_steps')
      .select(['seq', 'status'])
      .where('run_id', '=', runId)
      .orderBy('seq')
      .execute()

  it('writes the end and the skipped steps together, for runs ending at the same moment', async () => {
    const [a, b] = [await heldBy('w_a'), await heldBy('w_a')]
    const ended = await Promise.all([
      state.finish(a, lease('w_a'), 'succeeded', { result: { ok: 1 } }, [skipped(0), skipped(1)]),
      state.finish(b, lease('w_a'), 'failed', { error: { code: 'x', message: 'y' } }, [skipped(0)]),
    ])
    expect(ended).toEqual([true, true])
    expect(await timeline(a)).toEqual([
      { seq: 0, status: 'skipped' },
      { seq: 1, status: 'skipped' },
    ])
    expect(await timeline(b)).toEqual([{ seq: 0, status: 'skipped' }])
    const rows = await store.db
      .selectFrom('runs')
      .select(['id', 'status', 'lease_holder'])
      .where('id', 'in', [a, b])
      .orderBy('status')
      .execute()
    expect(rows.map((r) => [r.status, r.lease_holder])).toEqual([
      ['failed', null],
      ['succeeded', null],
    ])
  })

  it('a worker that lost the run writes nothing, even when it ends in the same batch as the holder', async () => {
    const run = await heldBy('w_now')
    const [stale, holder] = await Promise.all([
      state.finish(run, lease('w_before'), 'failed', { error: { code: 'x', message: 'stale' } }, [
        skipped(0),
        skipped(1),
      ]),
      state.finish(run, lease('w_now'), 'succeeded', { result: null }, [skipped(0)]),
    ])
    expect([stale, holder]).toEqual([false, true])
    expect(await timeline(run)).toEqual([{ seq: 0, status: 'skipped' }])
    expect(
      (await store.db.selectFrom('runs').select('status').where('id', '=', run).executeTakeFirstOrThrow())
        .status,
    ).toBe('succeeded')
  })
})
