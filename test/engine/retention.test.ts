import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { describeRun, type Run } from '../../src/cli/runs.ts'
import { RunState } from '../../src/core/agents/run-state.ts'
import { CUT_KEY, CUT_MARK, cutParts } from '../../src/core/agents/stored-value.ts'
import { loadConfig, ConfigError } from '../../src/core/config.ts'
import { DEFAULT_RETENTION, eventDaysFloor, type RetentionSettings } from '../../src/core/retention/policy.ts'
import { Pruner } from '../../src/core/retention/pruner.ts'
import { openStore, type Store } from '../../src/core/store/database.ts'
import { acceptEvents } from '../../src/core/triggers/accept.ts'
import { platforms } from '../../src/platforms/index.ts'
import { STORES, type FreshStore } from '../helpers/engine.ts'

const DAY_MS = 24 * 60 * 60 * 1000
const settings = (runs: Partial<RetentionSettings['runs']>, eventDays = 1): RetentionSettings => ({
  runs: { ...DEFAULT_RETENTION.runs, ...runs },
  eventDays,
})

let opened: Array<{ store: Store; fresh: FreshStore }> = []
afterEach(async () => {
  for (const { store, fresh } of opened) {
    await store.close()
    await fresh.drop()
  }
  opened = []
})

async function open(fresh: FreshStore): Promise<Store> {
  const store = await openStore(fresh.databaseUrl ? { databaseUrl: fresh.databaseUrl } : { memory: true })
  opened.push({ store, fresh })
  return store
}

async function user(store: Store, id: string, plan: 'free' | 'pro' | 'enterprise') {
  await sql`insert into users (id, email, name, plan) values (${id}, ${`${id}@example.test`}, ${id}, ${plan})`.execute(
    store.db,
  )
  await sql`insert into agents (id, user_id, name, current_version) values (${`agt_${id}`}, ${id}, 'a', 1)`.execute(
    store.db,
  )
}

/** `n` runs of `userId`, made `ageDays` ago a second apart (the newest first in id order too), each with one step. */
async function runs(store: Store, userId: string, n: number, ageDays: number, status: string, tag: string) {
  await sql`
    insert into runs (id, user_id, agent_id, agent_version, started_by, inputs, status, created_at, finished_at)
    select ${`run_${tag}_`} || lpad(g::text, 6, '0'), ${userId}, ${`agt_${userId}`}, 1, 'api', '{}'::jsonb, ${status},
      now() - ${ageDays} * interval '1 day' - g * interval '1 second',
      case when ${status} in ('queued', 'running') then null else now() end
    from generate_series(1, ${n}) g`.execute(store.db)
  await sql`
    insert into run_steps (run_id, seq, key, kind, status, input)
    select id, 0, 'first', 'step', 'succeeded', '{"a": 1}'::jsonb from runs where id like ${`run_${tag}_%`}`.execute(
    store.db,
  )
}

const ids = async (store: Store, userId: string) =>
  (await store.db.selectFrom('runs').select('id').where('user_id', '=', userId).orderBy('id').execute()).map(
    (r) => r.id,
  )

// Building thousands of runs on a shared, loaded machine takes a while; nothing here is timed.
const SLOW = { timeout: 240_000 }

describe.each(STORES)('retention on $name', SLOW, ({ open: openFresh }) => {
  it('deletes finished runs past their plan’s age, with their timelines, and never a queued or running one', async () => {
    const store = await open(await openFresh('retention_age'))
    await user(store, 'ufree', 'free')
    await user(store, 'upro', 'pro')
    await runs(store, 'ufree', 3, 8, 'succeeded', 'fold')
    await runs(store, 'ufree', 2, 8, 'failed', 'ffail')
    await runs(store, 'ufree', 2, 8, 'queued', 'fqueued')
    await runs(store, 'ufree', 1, 8, 'running', 'frunning')
    await runs(store, 'ufree', 2, 1, 'succeeded', 'fnew')
    await runs(store, 'upro', 3, 8, 'succeeded', 'pold')
    await runs(store, 'upro', 2, 31, 'cancelled', 'pancient')
    const pruner = new Pruner(
      store.db,
      settings({ free: { maxAgeDays: 7, maxRuns: 1000 }, pro: { maxAgeDays: 30, maxRuns: 1000 } }),
    )
    const deleted = await pruner.prune()
    expect(deleted.runs).toBe(3 + 2 + 2)
    expect(await ids(store, 'ufree')).toEqual([
      'run_fnew_000001',
      'run_fnew_000002',
      'run_fqueued_000001',
      'run_fqueued_000002',
      'run_frunning_000001',
    ])
    expect(await ids(store, 'upro')).toEqual(['run_pold_000001', 'run_pold_000002', 'run_pold_000003'])
    const orphans = await sql<{
      n: string
    }>`select count(*) as n from run_steps where run_id not in (select id from runs)`.execute(store.db)
    expect(Number(orphans.rows[0]!.n)).toBe(0)
    expect(
      Number((await sql<{ n: string }>`select count(*) as n from run_steps`.execute(store.db)).rows[0]!.n),
    ).toBe(8)
  })

  it('keeps each user’s newest runs up to their plan’s count, in batches past the batch size', async () => {
    const store = await open(await openFresh('retention_count'))
    await user(store, 'ufree', 'free')
    await user(store, 'ufree2', 'free')
    await user(store, 'uent', 'enterprise')
    await runs(store, 'ufree', 700, 0, 'succeeded', 'f')
    await runs(store, 'ufree2', 4, 0, 'succeeded', 'g')
    await runs(store, 'uent', 700, 0, 'succeeded', 'e')
    const pruner = new Pruner(
      store.db,
      settings({ free: { maxAgeDays: 7, maxRuns: 5 }, enterprise: { maxAgeDays: 90, maxRuns: 500 } }),
    )
    expect((await pruner.prune()).runs).toBe(695 + 200)
    // Newest first: run 1 was made last (a second after run 2, and so on).
    expect(await ids(store, 'ufree')).toEqual(
      ['000001', '000002', '000003', '000004', '000005'].map((n) => `run_f_${n}`),
    )
    expect(await ids(store, 'ufree2')).toHaveLength(4)
    expect(await ids(store, 'uent')).toHaveLength(500)
    expect((await ids(store, 'uent')).at(-1)).toBe('run_e_000500')
    expect((await pruner.prune()).runs).toBe(0)
  })

  it('keeps events as long as a platform may retry, so a late retry is still a duplicate', async () => {
    const store = await open(await openFresh('retention_events'))
    const candidate = (dedupeKey: string) => ({ dedupeKey, type: 'updateCard', raw: {} })
    const [first] = await acceptEvents(store.db, [
      { source: 'whk_1', candidate: candidate('late-retry'), matches: [] },
    ])
    expect(first!.duplicate).toBe(false)
    await acceptEvents(store.db, [{ source: 'whk_1', candidate: candidate('long-gone'), matches: [] }])
    // One received 20 hours ago (inside every platform's retry window), one 3 days ago.
    await sql`update events set received_at = now() - interval '20 hours' where dedupe_key = 'late-retry'`.execute(
      store.db,
    )
    await sql`update events set received_at = now() - interval '3 days', id = 'evt_000000000old' where dedupe_key = 'long-gone'`.execute(
      store.db,
    )
    const floor = eventDaysFloor(platforms.flatMap((p) => (p.webhooks ? [p.webhooks.retryWindowMs] : [])))
    expect(floor).toBeGreaterThanOrEqual(1)
    const deleted = await new Pruner(store.db, settings({}, floor)).prune()
    expect(deleted.events).toBe(1)
    const [retry] = await acceptEvents(store.db, [
      { source: 'whk_1', candidate: candidate('late-retry'), matches: [] },
    ])
    expect(retry!.duplicate).toBe(true)
  })

  it('stores a step’s 10 MB input cut, with a marker REST and the CLI show; the run keeps working on the whole value', async () => {
    const store = await open(await openFresh('retention_cut'))
    await user(store, 'u', 'free')
    await runs(store, 'u', 1, 0, 'running', 'cut')
    const state = new RunState(store.db, undefined, 256 * 1024)
    // The run is held by this test's claim: every timeline write is fenced on it (run-state.ts).
    const lease = {
      holder: 'test-claim',
      held: () => true,
      stopping: new AbortController().signal,
      offSlot: <T>(wait: () => Promise<T>) => wait(),
    }
    await store.db
      .updateTable('runs')
      .set({ lease_holder: lease.holder })
      .where('id', '=', 'run_cut_000001')
      .execute()
    const attachment = Buffer.alloc(7_500_000, 7).toString('base64')
    const input = { ticket_id: 42, attachment: { filename: 'big.bin', content_base64: attachment } }
    await state.begin('run_cut_000001', lease, { seq: 1, key: 'attach', kind: 'step', input })
    await state.end('run_cut_000001', 1, { status: 'succeeded', output: { ok: true, echo: attachment } })
    const rows = await state.steps('run_cut_000001')
    const stored = rows.find((r) => r.seq === 1)!
    expect(JSON.stringify(stored.input).length).toBeLessThan(256 * 1024)
    expect((stored.input as any).ticket_id).toBe(42)
    expect((stored.input as any).attachment.content_base64).toContain(
      `${CUT_MARK}${attachment.length} characters`,
    )
    expect(cutParts(stored.input, stored.output)).toEqual(['input', 'output'])
    // What fits is stored whole, and says nothing.
    expect(cutParts(rows.find((r) => r.seq === 0)!.input, null)).toEqual([])
    // Many small items: the whole value becomes the start of its JSON, marked.
    await state.begin('run_cut_000001', lease, { seq: 2, key: 'list', kind: 'step', input: {} })
    const many = Array.from({ length: 40_000 }, (_, i) => ({ id: i, name: `card ${i}` }))
    await state.end('run_cut_000001', 2, { status: 'succeeded', output: { cards: many } })
    const list = (await state.steps('run_cut_000001')).find((r) => r.seq === 2)!
    expect(Object.keys(list.output as object).sort()).toEqual(['start', CUT_KEY])
    expect(cutParts(list.input, list.output)).toEqual(['output'])
    const lines = describeRun({
      id: 'run_cut_000001',
      agent_id: 'a',
      agent_name: 'a',
      agent_version: 1,
      status: 'succeeded',
      started_by: 'api',
      trigger_id: null,
      test: false,
      rerun_of: null,
      inputs: {},
      result: null,
      error: null,
      created_at: new Date().toISOString(),
      started_at: null,
      finished_at: null,
      duration_ms: null,
      timeline: [
        {
          seq: 1,
          key: 'attach',
          kind: 'step',
          tool_id: null,
          tool_title: 'Attach',
          integration_name: null,
          status: 'succeeded',
          summary: null,
          error: null,
          attempts: [],
          duration_ms: 1,
          cut: ['input', 'output'],
        },
      ],
    } as Run)
    expect(lines.join('\n')).toContain('input and output stored cut')
  })
})

describe.skipIf(!process.env.TEST_DATABASE_URL)('retention on several instances (PostgreSQL)', SLOW, () => {
  it('two instances pruning at once delete each run once, wait on nothing and fail nothing', async () => {
    const fresh = await STORES[1]!.open('retention_two')
    const a = await open(fresh)
    const b = await open({ databaseUrl: fresh.databaseUrl, drop: async () => {} })
    await user(a, 'u', 'free')
    await runs(a, 'u', 3_000, 8, 'succeeded', 'old')
    await runs(a, 'u', 10, 0, 'succeeded', 'new')
    const rule = settings({ free: { maxAgeDays: 7, maxRuns: 1_000 } })
    // Both passes at once, past the lease (as when one instance's lease lapsed mid-pass): SKIP LOCKED shares the rows.
    const [x, y] = await Promise.all([
      new Pruner(a.db, rule, undefined, 0).prune(),
      new Pruner(b.db, rule, undefined, 0).prune(),
    ])
    expect(x.runs + y.runs).toBe(3_000)
    expect(await ids(a, 'u')).toHaveLength(10)
    // Through the lease, one instance prunes and the other skips its turn.
    await runs(a, 'u', 600, 8, 'succeeded', 'again')
    const turns = await Promise.all([
      new Pruner(a.db, rule).pruneIfFree(),
      new Pruner(b.db, rule).pruneIfFree(),
    ])
    expect(turns.filter((t) => t === undefined)).toHaveLength(1)
    expect(turns.find((t) => t !== undefined)!.runs).toBe(600)
  })
})

describe('retention settings', () => {
  it('take every plan, or plans by name, and refuse what they cannot use, naming the variable', () => {
    const config = loadConfig({
      SWITCHYARD_RUN_RETENTION_DAYS: 'free=3,enterprise=365',
      SWITCHYARD_RUN_RETENTION_COUNT: '50',
    })
    expect(config.retention.runs).toEqual({
      free: { maxAgeDays: 3, maxRuns: 50 },
      pro: { maxAgeDays: 30, maxRuns: 50 },
      enterprise: { maxAgeDays: 365, maxRuns: 50 },
    })
    for (const [name, value] of [
      ['SWITCHYARD_RUN_RETENTION_DAYS', 'free=0'],
      ['SWITCHYARD_RUN_RETENTION_DAYS', 'gold=3'],
      ['SWITCHYARD_RUN_RETENTION_COUNT', 'ten'],
      ['SWITCHYARD_RUN_RETENTION_COUNT', 'free=5=6'],
      ['SWITCHYARD_EVENT_RETENTION_DAYS', '0'],
      ['SWITCHYARD_STEP_STORE_MAX_BYTES', '100'],
    ]) {
      expect(() => loadConfig({ [name!]: value })).toThrow(ConfigError)
      expect(() => loadConfig({ [name!]: value })).toThrow(name!)
    }
  })

  it('keep events at least a day: the longest retry window a platform declares', () => {
    expect(eventDaysFloor([60_000, DAY_MS, 3_600_000])).toBe(1)
    expect(eventDaysFloor([DAY_MS + 1])).toBe(2)
  })
})
