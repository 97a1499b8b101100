import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../store/database.ts'
import { openRunStore, type RunStore } from '../../../test/helpers/run-store.ts'
import { asOwner } from '../store/statement-owner.ts'
import { RunState, type EntryStamp, type Settled } from './run-state.ts'

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

  it('writes the end and the skipped steps together, for runs ending at the same moment', async () => {
    const [a, b] = [await heldBy('w_a'), await heldBy('w_a')]
    const ended = await Promise.all([
      state.finish(a, lease('w_a'), 'succeeded', { result: { ok: 1 } }, [skipped(0), skipped(1)]),
      state.finish(b, lease('w_a'), 'failed', { error: { code: 'x', message: 'y' } }, [skipped(0)]),
    ])
    expect(ended).toEqual([true, true])
    expect(await runs.entries(a)).toEqual([
      { seq: 0, status: 'skipped' },
      { seq: 1, status: 'skipped' },
    ])
    expect(await runs.entries(b)).toEqual([{ seq: 0, status: 'skipped' }])
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
    expect(await runs.entries(run)).toEqual([{ seq: 0, status: 'skipped' }])
    expect(
      (await store.db.selectFrom('runs').select('status').where('id', '=', run).executeTakeFirstOrThrow())
        .status,
    ).toBe('succeeded')
  })
})

// Entries begun at the same moment, by any of a worker's claims, share one statement, and each claim
// still gets only its own rows, or nothing when its fence refuses it (run-state.ts, begin).
describe('beginning entries', () => {
  let runs: RunStore
  let store: Store
  let state: RunState
  let statements = 0

  beforeAll(async () => {
    runs = await openRunStore('begins@example.test')
    store = runs.store
    const counted = store.db.withPlugin({
      transformQuery: (args) => (statements++, args.node),
      transformResult: async (args) => args.result,
    })
    state = new RunState(counted)
  })
  afterAll(async () => store?.close())

  const heldBy = (holder: string) => runs.run({ status: 'running', lease_holder: holder })
  const lease = (holder: string) => ({
    holder,
    held: () => true,
    stopping: new AbortController().signal,
    offSlot: <T>(wait: () => Promise<T>) => wait(),
  })
  const read = (seq: number) => ({ seq, key: `call_${seq}`, kind: 'tool_call' as const, input: { n: seq } })
  /** Each stamp's place, and whether the entry was written ended. */
  const places = (stamps: EntryStamp[] | null) =>
    stamps?.map((s) => [s.seq, s.finished_at === null ? 'running' : 'ended']) ?? null
  const stored = async (run: string) =>
    (
      await store.db
        .selectFrom('run_steps')
        .select(['seq', 'status'])
        .where('run_id', '=', run)
        .orderBy('seq')
        .execute()
    ).map((r) => [r.seq, r.status])

  it('begins of several claims at once are one statement, each answered with its own stamps', async () => {
    const [a, b, c] = [await heldBy('w_a'), await heldBy('w_b'), await heldBy('w_c')]
    const before = statements
    const begun = await Promise.all([
      state.begin(a, lease('w_a'), read(0)),
      state.begin(b, lease('w_b'), read(1)),
      state.begin(c, lease('w_c'), read(2)),
    ])
    expect(statements - before).toBe(1)
    expect(begun.map(places)).toEqual([[[0, 'running']], [[1, 'running']], [[2, 'running']]])
    expect([await stored(a), await stored(b), await stored(c)]).toEqual([
      [[0, 'running']],
      [[1, 'running']],
      [[2, 'running']],
    ])
    // The stamps are the stored entries' own: the database's clock, not the caller's.
    const row = await store.db
      .selectFrom('run_steps')
      .select('started_at')
      .where('run_id', '=', b)
      .executeTakeFirstOrThrow()
    expect(begun[1]![0]!.started_at.getTime()).toBe(row.started_at.getTime())
  })

  it('a claim that lost its run gets nothing and writes nothing, in the same statement as claims that hold theirs', async () => {
    const [held, lost] = [await heldBy('w_now'), await heldBy('w_now')]
    const [kept, refused] = await Promise.all([
      state.begin(held, lease('w_now'), read(0)),
      state.begin(lost, lease('w_before'), read(0)),
    ])
    expect(places(kept)).toEqual([[0, 'running']])
    expect(refused).toBeNull()
    expect(await store.db.selectFrom('run_steps').select('seq').where('run_id', '=', lost).execute()).toEqual(
      [],
    )
  })

  it('reads one run begins together get one stamp each, and the ends one of them carries come back with it', async () => {
    const run = await heldBy('w_r')
    expect(places(await state.begin(run, lease('w_r'), read(0)))).toEqual([[0, 'running']])
    const [first, second] = await Promise.all([
      state.begin(run, lease('w_r'), read(1), [], [], {
        endings: [{ seq: 0, end: { status: 'succeeded' } }],
      }),
      state.begin(run, lease('w_r'), read(2)),
    ])
    expect(places(first)).toEqual([
      [0, 'ended'],
      [1, 'running'],
    ])
    expect(places(second)).toEqual([[2, 'running']])
    expect(await stored(run)).toEqual([
      [0, 'succeeded'],
      [1, 'running'],
      [2, 'running'],
    ])
  })

  it("another owner's begin goes in the next write, however many of one owner's are waiting", async () => {
    const [busy, other] = [await heldBy('w_busy'), await heldBy('w_other')]
    const order: string[] = []
    const burst = Array.from({ length: 300 }, (_, seq) =>
      asOwner('owner_busy', () => state.begin(busy, lease('w_busy'), read(seq))).then(() =>
        order.push('busy'),
      ),
    )
    const alone = asOwner('owner_other', () => state.begin(other, lease('w_other'), read(0))).then(() =>
      order.push('other'),
    )
    await Promise.all([...burst, alone])
    // One write takes at most 256 begins (GroupCommit's bound), one from each owner's line in turn:
    // the other owner's begin, submitted last, is in the first write, not after all 300.
    expect(order.indexOf('other')).toBeLessThan(order.length - 1)
  })
})
