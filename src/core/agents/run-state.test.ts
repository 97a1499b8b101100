import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../store/database.ts'
import { openRunStore, type RunStore } from '../../../test/helpers/run-store.ts'
import { RunState, type Settled } from './run-state.ts'

// A run's end and its call-less timeline entries are one write, and only the worker holding the run
// makes it (docs/architecture.md, "Runs are their own queue": End, Lease).
describe('ending a run', () => {
  let runs: RunStore
  let store: Store
  let state: RunState

  beforeAll(async () => {
    runs = await openRunStore('ends@example.test')
    store = runs.store
    state = new RunState(store.db)
  })
  afterAll(async () => store?.close())

  const heldBy = (holder: string) => runs.run({ status: 'running', lease_holder: holder })
  const skipped = (seq: number): Settled => ({
    step: { seq, key: `s${seq}`, kind: 'step', toolId: 'trello.get_card' },
    end: { status: 'skipped' },
  })
  const lease = (holder: string) => ({
    holder,
    held: () => true,
    stopping: new AbortController().signal,
    offSlot: <T>(wait: () => Promise<T>) => wait(),
  })
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
