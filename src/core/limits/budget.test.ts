import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { openStore, type Store } from '../store/database.ts'
import { MAX_WINDOW_MS, RateBudget, SWEEP_EVERY_MS, type BudgetStore, type BudgetWindow } from './budget.ts'
import { MemoryBudgetStore, SWEEP_AT_KEYS } from './budget-memory.ts'
import { PAUSE_RECHECK_MS, PostgresBudgetStore } from './budget-postgres.ts'

const WAIT = { kind: 'wait', maxWaitMs: 30_000 } as const
const window = (key: string, limit: number, windowMs: number): BudgetWindow => ({
  key: `${key}-${Math.random()}`,
  limit,
  windowMs,
})

/** The largest number of grants inside any span of `spanMs`. */
function maxInAnySpan(times: number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b)
  let best = 0
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= spanMs) j++
    best = Math.max(best, i - j + 1)
  }
  return best
}

const stores: Array<[string, () => Promise<{ store: BudgetStore; close(): Promise<void> }>]> = [
  ['memory', async () => ({ store: new MemoryBudgetStore(), close: async () => {} })],
]
if (process.env.TEST_DATABASE_URL) {
  stores.push([
    'postgres',
    async () => {
      const db: Store = await openStore({ databaseUrl: process.env.TEST_DATABASE_URL! })
      return { store: new PostgresBudgetStore(db.db), close: () => db.close() }
    },
  ])
}

describe.each(stores)('rate budget on %s', (_name, open) => {
  let opened: Awaited<ReturnType<typeof open>>
  beforeAll(async () => {
    opened = await open()
  })
  afterAll(async () => {
    await opened?.close()
  })

  it('never grants more than the limit in any window, and grants all of them eventually', async () => {
    const budget = new RateBudget(opened.store)
    const w = window('t', 5, 300)
    const granted: number[] = []
    await Promise.all(
      Array.from({ length: 15 }, async () => {
        await budget.take([w], 'agent', WAIT)
        granted.push(Date.now())
      }),
    )
    expect(granted).toHaveLength(15)
    expect(maxInAnySpan(granted, 300)).toBeLessThanOrEqual(5)
  })

  it('a request must fit every window: the tighter one decides', async () => {
    const budget = new RateBudget(opened.store)
    const perToken = window('token', 10, 400)
    const perApp = window('app', 3, 400)
    const granted: number[] = []
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        await budget.take([perToken, perApp], 'agent', WAIT)
        granted.push(Date.now())
      }),
    )
    expect(maxInAnySpan(granted, 400)).toBeLessThanOrEqual(3)
  })

  it('is fair between agents: a quiet agent is not starved by a busy one', async () => {
    const budget = new RateBudget(opened.store)
    const w = window('fair', 2, 200)
    const order: string[] = []
    const busy = Array.from({ length: 10 }, () =>
      budget.take([w], 'busy', WAIT).then(() => order.push('busy')),
    )
    // The quiet agent arrives once the busy one holds its first grant (whichever of its calls that
    // is) and has a backlog queued.
    await Promise.race(busy)
    const quiet = Array.from({ length: 2 }, () =>
      budget.take([w], 'quiet', WAIT).then(() => order.push('quiet')),
    )
    await Promise.all([...busy, ...quiet])
    // Round-robin: both quiet requests are served within the next few grants, not after the backlog.
    expect(order.lastIndexOf('quiet'), order.join(',')).toBeLessThan(7)
  })

  it('fail mode answers rate_limited with retry_after instead of waiting', async () => {
    const budget = new RateBudget(opened.store)
    const w = window('fail', 1, 5000)
    await budget.take([w], 'a', { kind: 'fail' })
    await expect(budget.take([w], 'a', { kind: 'fail' })).rejects.toMatchObject({
      code: 'rate_limited',
      extras: { retryAfterSeconds: expect.any(Number) },
    })
  })

  it('a block (the platform said 429) stops grants until it ends', async () => {
    const budget = new RateBudget(opened.store)
    const w = window('blocked', 100, 1000)
    await budget.block([w.key], Date.now() + 300)
    const started = Date.now()
    await budget.take([w], 'a', WAIT)
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
  })
})

describe('a waiter whose bound runs out before budget returns', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('fails at once with rate_limited: no timer has to fire for it to fail', async () => {
    // Timers are frozen: a waiter that slept, even for a millisecond, would never settle.
    vi.useFakeTimers()
    const budget = new RateBudget(new MemoryBudgetStore())
    const w = window('bound', 1, 10_000)
    await budget.take([w], 'a', WAIT)
    await expect(budget.take([w], 'a', { kind: 'wait', maxWaitMs: 500 })).rejects.toMatchObject({
      code: 'rate_limited',
    })
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('the stores stay bounded', () => {
  it('in memory, keys whose window and pause have passed are swept out on the next write after SWEEP_EVERY_MS', async () => {
    let now = 1_000_000
    const store = new MemoryBudgetStore(() => now)
    for (let i = 0; i < 1000; i++) await store.tryTake([{ key: `gone-${i}`, limit: 5, windowMs: 1000 }])
    await store.block(
      Array.from({ length: 1000 }, (_, i) => `paused-${i}`),
      now + 500,
    )
    expect(store.size()).toEqual({ logs: 1000, blocks: 1000 })
    now += SWEEP_EVERY_MS
    await store.tryTake([{ key: 'live', limit: 5, windowMs: 1000 }])
    expect(store.size()).toEqual({ logs: 1, blocks: 0 })
  })

  it('in memory, a burst of keys past SWEEP_AT_KEYS is swept without waiting for the schedule', async () => {
    let now = 1_000_000
    const store = new MemoryBudgetStore(() => now)
    for (let i = 0; i < SWEEP_AT_KEYS; i++) {
      await store.tryTake([{ key: `burst-${i}`, limit: 5, windowMs: 10 }])
      now += 1
    }
    // Every window but the last ten has passed; far less than SWEEP_EVERY_MS has gone by.
    await store.tryTake([{ key: 'one-more', limit: 5, windowMs: 10 }])
    expect(store.size().logs).toBeLessThanOrEqual(11)
  })

  it('refuses a window longer than the stores keep requests for', async () => {
    const budget = new RateBudget(new MemoryBudgetStore())
    await expect(
      budget.take([{ key: 'k', limit: 1, windowMs: MAX_WINDOW_MS + 1 }], 'a', WAIT),
    ).rejects.toThrow(/MAX_WINDOW_MS/)
  })
})

describe.runIf(process.env.TEST_DATABASE_URL)('the PostgreSQL store stays bounded', () => {
  let db: Store
  beforeAll(async () => {
    db = await openStore({ databaseUrl: process.env.TEST_DATABASE_URL! })
  })
  afterAll(async () => {
    await db?.close()
  })

  it('a sweep deletes, for every key, requests older than any window and pauses that have ended', async () => {
    const run = Math.random().toString(36).slice(2)
    const now = Date.now()
    await db.db
      .insertInto('rate_events')
      .values([
        { key: `old-${run}`, at_ms: String(now - MAX_WINDOW_MS - 60_000) },
        { key: `recent-${run}`, at_ms: String(now - 1000) },
      ])
      .execute()
    await db.db
      .insertInto('rate_blocks')
      .values([
        { key: `ended-${run}`, until_ms: String(now - 1000) },
        { key: `running-${run}`, until_ms: String(now + 60_000) },
      ])
      .execute()
    // A take on an unrelated key, by a store whose sweep is due.
    await new PostgresBudgetStore(db.db, undefined, 0).tryTake([window('other', 5, 1000)])
    const events = await db.db
      .selectFrom('rate_events')
      .select('key')
      .where('key', 'like', `%-${run}`)
      .execute()
    const blocks = await db.db
      .selectFrom('rate_blocks')
      .select('key')
      .where('key', 'like', `%-${run}`)
      .execute()
    expect(events.map((e) => e.key)).toEqual([`recent-${run}`])
    expect(blocks.map((b) => b.key)).toEqual([`running-${run}`])
  })
})

describe('a token with no fixed budget', () => {
  it('is never held back by counting, but a pause announced by the platform applies to it', async () => {
    const budget = new RateBudget(new MemoryBudgetStore())
    const unlimited = { key: `u-${Math.random()}`, limit: Number.POSITIVE_INFINITY, windowMs: 0 }
    await Promise.all(Array.from({ length: 500 }, () => budget.take([unlimited], 'a', { kind: 'fail' })))
    await budget.block([unlimited.key], Date.now() + 60_000)
    await expect(budget.take([unlimited], 'a', { kind: 'fail' })).rejects.toMatchObject({
      code: 'rate_limited',
    })
  })
})

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'a token with no fixed budget, over several processes on PostgreSQL',
  () => {
    let first: Store
    let second: Store
    beforeAll(async () => {
      first = await openStore({ databaseUrl: process.env.TEST_DATABASE_URL! })
      second = await openStore({ databaseUrl: process.env.TEST_DATABASE_URL! })
    })
    afterAll(async () => {
      await first?.close()
      await second?.close()
    })

    it('holds back every process once one of them learns of a pause, within PAUSE_RECHECK_MS', async () => {
      const here = new RateBudget(new PostgresBudgetStore(first.db))
      const there = new RateBudget(new PostgresBudgetStore(second.db))
      const unlimited = { key: `u-${Math.random()}`, limit: Number.POSITIVE_INFINITY, windowMs: 0 }
      await there.take([unlimited], 'a', { kind: 'fail' }) // "there" has read: no pause
      await here.block([unlimited.key], Date.now() + 60_000)
      await expect(here.take([unlimited], 'a', { kind: 'fail' })).rejects.toMatchObject({
        code: 'rate_limited',
      })
      await new Promise((resolve) => setTimeout(resolve, PAUSE_RECHECK_MS + 50))
      await expect(there.take([unlimited], 'a', { kind: 'fail' })).rejects.toMatchObject({
        code: 'rate_limited',
      })
    })

    it('tells every process of a pause at once over the change feed', async () => {
      const here = new RateBudget(new PostgresBudgetStore(first.db, first.changes))
      const there = new RateBudget(new PostgresBudgetStore(second.db, second.changes))
      const unlimited = { key: `u-${Math.random()}`, limit: Number.POSITIVE_INFINITY, windowMs: 0 }
      await there.take([unlimited], 'a', { kind: 'fail' }) // "there" has read: no pause, for PAUSE_RECHECK_MS
      // Other suites on the same database announce pauses too: wait for this key's.
      const heard = new Promise<void>((resolve) =>
        second.changes.subscribe((kind, id) => {
          if (kind === 'rate_pause' && id.endsWith(` ${unlimited.key}`)) resolve()
        }),
      )
      await here.block([unlimited.key], Date.now() + 60_000)
      await heard
      await expect(there.take([unlimited], 'a', { kind: 'fail' })).rejects.toMatchObject({
        code: 'rate_limited',
        extras: { retryAfterSeconds: expect.any(Number) },
      })
    })

    it('a pause already in storage holds back a process that has not read it yet', async () => {
      const unlimited = { key: `u-${Math.random()}`, limit: Number.POSITIVE_INFINITY, windowMs: 0 }
      await new PostgresBudgetStore(first.db).block([unlimited.key], Date.now() + 60_000)
      const fresh = new RateBudget(new PostgresBudgetStore(second.db))
      await expect(fresh.take([unlimited], 'a', { kind: 'fail' })).rejects.toMatchObject({
        code: 'rate_limited',
      })
    })
  },
)
