import type { KyselyPlugin, QueryId } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../store/database.ts'
import { openRunStore, type RunStore } from '../../../test/helpers/run-store.ts'
import type { RunRow } from './runs.ts'
import { statementOwner } from '../store/statement-owner.ts'
import { MAX_LAPSES, RunWorker, slotsPerOwner, WAITS_PER_SLOT, type Lease } from './worker.ts'

// The worker's wake-ups (docs/architecture.md, "Runs are their own queue"). Its idle poll is set to an
// hour here, so a run that starts at all started because a wake reached the worker: a lost wake
// shows as a run that never starts, not as a slower one.
const AN_HOUR_MS = 60 * 60 * 1000

describe('the run worker', () => {
  let runs: RunStore
  let store: Store

  beforeAll(async () => {
    runs = await openRunStore('worker@example.test')
    store = runs.store
  })
  afterAll(async () => store?.close())

  const enqueue = () => runs.run()
  /** What a handler does once its run is done: marks it succeeded, while its lease is still its own. */
  const succeed = (run: RunRow, lease: Lease) =>
    store.db
      .updateTable('runs')
      .set({ status: 'succeeded', lease_holder: null })
      .where('id', '=', run.id)
      .where('lease_holder', '=', lease.holder)
      .execute()
  /** A handler that notes each run it starts, then succeeds it (after `waitFor(run)`, if given). */
  const noting = (started: string[], waitFor?: (run: RunRow) => Promise<void>) => ({
    async execute(run: RunRow, lease: Lease) {
      started.push(run.id)
      await waitFor?.(run)
      await succeed(run, lease)
    },
  })
  /** A worker of `slots` whose errors fail the test; the other arguments as given. */
  const workerOf = (
    handler: ConstructorParameters<typeof RunWorker>[1],
    slots: number,
    idlePollMs?: number,
  ) =>
    new RunWorker(
      store.db,
      handler,
      slots,
      (err) => {
        throw err
      },
      ...(idlePollMs === undefined ? [] : ([30_000, undefined, idlePollMs] as const)),
    )
  /** Polls every 5 ms, at most `tries` times, until `done`. */
  const until = async (done: () => boolean, tries = 2_000) => {
    for (let i = 0; i < tries && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  }
  /** Lets go of what holds the runs, stops the worker and ends `ids`, so the next test meets none of them. */
  const stopAndEnd = async (worker: RunWorker, ids: string[], letGo: () => void) => {
    letGo()
    await worker.stop()
    await store.db
      .updateTable('runs')
      .set({ status: 'succeeded', lease_holder: null })
      .where('id', 'in', ids)
      .execute()
  }

  // Issue 22 §2: on the embedded store a run's statements take turns with other owners' only if they
  // are known to be its owner's (store/statement-owner.ts).
  it("a run's handler works as the run's owner, so its statements wait in that owner's line", async () => {
    const owner = await runs.owner('statement-owner@example.test')
    const run = await runs.run({ user_id: owner.userId, agent_id: owner.agentId })
    const seen = new Map<string, string | undefined>()
    const worker = workerOf(
      {
        async execute(r: RunRow, lease: Lease) {
          await succeed(r, lease)
          seen.set(r.id, statementOwner())
        },
      },
      2,
      AN_HOUR_MS,
    )
    worker.start()
    try {
      worker.wake()
      await until(() => seen.has(run))
      expect(seen.get(run)).toBe(owner.userId)
    } finally {
      await worker.stop()
    }
  })

  it('no lost wake: a run queued while every slot is busy starts when a slot frees, without waiting for the idle poll', async () => {
    const started: string[] = []
    const release = new Map<string, () => void>()
    const handler = noting(started, (run) => new Promise<void>((resolve) => release.set(run.id, resolve)))
    const worker = workerOf(handler, 2, AN_HOUR_MS)
    const reached = async (what: string, ok: () => boolean) => {
      await until(ok)
      expect(ok(), what).toBe(true)
    }
    worker.start()
    try {
      const first = [await enqueue(), await enqueue()]
      worker.wake()
      await reached('both slots taken', () => started.length === 2)
      // Every slot is busy: these wakes cannot be served now, and must not be forgotten.
      const waiting = [await enqueue(), await enqueue(), await enqueue()]
      worker.wake()
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect([...started].sort()).toEqual([...first].sort())
      release.get(started[0]!)!()
      await reached('a waiting run takes the freed slot', () => started.length === 3)
      release.get(started[1]!)!()
      await reached('another waiting run takes the next freed slot', () => started.length === 4)
      release.get(started[2]!)!()
      await reached('the last waiting run starts', () => started.length === 5)
      expect(started.slice(2).sort()).toEqual([...waiting].sort())
      for (const id of started.slice(3)) release.get(id)!()
    } finally {
      for (const r of release.values()) r()
      await worker.stop()
    }
  })

  it('a burst cannot starve runs: while the intake stays busy, claims wait but still come, and stop still returns', async () => {
    const started: string[] = []
    const worker = workerOf(noting(started), 1, AN_HOUR_MS)
    worker.intakeBusy = () => true
    worker.start()
    try {
      const queued = [await enqueue(), await enqueue(), await enqueue()]
      worker.wake()
      await until(() => started.length >= queued.length)
      expect([...started].sort()).toEqual([...queued].sort())
    } finally {
      await worker.stop()
    }
  })

  // Issue 22, section 2: runs were claimed in one global order, so one owner's burst delayed everyone.
  it("fair between owners: one owner's burst does not hold back another owner's run queued after it", async () => {
    const other = await runs.owner('neighbour@example.test')
    const burst: string[] = []
    for (let i = 0; i < 40; i++) burst.push(await enqueue())
    const lone = await runs.run({ user_id: other.userId, agent_id: other.agentId })
    const started: string[] = []
    const worker = workerOf(noting(started), 1)
    worker.start()
    try {
      await until(() => started.length >= 41, 4_000)
      // One slot: the burst's first run, then the other owner's turn, then the rest of the burst.
      expect(started.indexOf(lone)).toBeLessThanOrEqual(1)
      expect([...started].sort()).toEqual([...burst, lone].sort())
    } finally {
      await worker.stop()
    }
  })

  // Issue 22, section 2 (noisy neighbour): claims were fair, but one owner's burst held every slot,
  // so another owner's run, though claimed first, waited for one of the burst's runs to end.
  it("a slot is kept for other owners: another owner's run starts while one owner's burst holds the rest, and the burst still drains", async () => {
    const busy = await runs.owner('burst-owner@example.test')
    const other = await runs.owner('slot-neighbour@example.test')
    const burst: string[] = []
    for (let i = 0; i < 6; i++) burst.push(await runs.run({ user_id: busy.userId, agent_id: busy.agentId }))
    const started: string[] = []
    const release = new Map<string, () => void>()
    const handler = {
      async execute(run: RunRow, lease: Lease) {
        started.push(run.id)
        await new Promise<void>((resolve) => release.set(run.id, resolve))
        await store.db
          .updateTable('runs')
          .set({ status: 'succeeded', lease_holder: null })
          .where('id', '=', run.id)
          .where('lease_holder', '=', lease.holder)
          .execute()
      },
    }
    const concurrency = 4
    const share = slotsPerOwner(concurrency)
    expect(share).toBe(concurrency - 1)
    const worker = new RunWorker(
      store.db,
      handler,
      concurrency,
      (err) => {
        throw err
      },
      30_000,
      undefined,
      AN_HOUR_MS,
    )
    const until = async (what: string, ok: () => boolean) => {
      for (let i = 0; i < 2_000 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
      expect(ok(), what).toBe(true)
    }
    const burstStarted = () => started.filter((id) => burst.includes(id))
    worker.start()
    try {
      worker.wake()
      await until('the burst takes its share of the slots', () => started.length === share)
      const lone = await runs.run({ user_id: other.userId, agent_id: other.agentId })
      worker.wake()
      await until("the other owner's run starts while the burst's runs are all still running", () =>
        started.includes(lone),
      )
      expect(burstStarted()).toHaveLength(share)
      expect(release.size).toBe(share + 1)
      // The end of one of the burst's runs wakes the worker (its idle poll is an hour): the next one starts.
      release.get(burst.find((id) => started.includes(id))!)!()
      await until("the burst's next run takes the freed share", () => burstStarted().length === share + 1)
      await until('the rest of the burst starts as its runs end', () => {
        for (const id of burstStarted()) release.get(id)?.()
        return burstStarted().length === burst.length
      })
      expect([...burstStarted()].sort()).toEqual([...burst].sort())
    } finally {
      for (const r of release.values()) r()
      await worker.stop()
    }
  })

  // Issue 22, section 9: on the embedded store another owner's run, written, waited for its claim behind
  // the busy owner's next write; that claim now jumps the line (Store.soonest), and only that one: the
  // busy owner's claims ahead of everything would put the other owner's next write behind them.
  it("a claim woken by an owner holding none of the slots goes through the newcomers' handle, the busy owner's claims through the ordinary one", async () => {
    const busy = await runs.owner('lane-burst@example.test')
    const other = await runs.owner('lane-neighbour@example.test')
    const burst: string[] = []
    for (let i = 0; i < 4; i++) burst.push(await runs.run({ user_id: busy.userId, agent_id: busy.agentId }))
    const started: string[] = []
    const release = new Map<string, () => void>()
    const handler = {
      async execute(run: RunRow, lease: Lease) {
        started.push(run.id)
        await new Promise<void>((resolve) => release.set(run.id, resolve))
        await succeed(run, lease)
      },
    }
    const counts = { ordinary: 0, newcomers: 0 }
    const counting = (key: keyof typeof counts) =>
      store.db.withPlugin({
        transformQuery: (args) => (counts[key]++, args.node),
        transformResult: async (args) => args.result,
      })
    const worker = workerOf(handler, 4, AN_HOUR_MS)
    worker.claimsThrough = counting('ordinary')
    worker.newcomerClaimsThrough = counting('newcomers')
    const burstStarted = () => started.filter((id) => burst.includes(id))
    worker.start()
    try {
      await until(() => burstStarted().length === slotsPerOwner(4))
      expect(burstStarted()).toHaveLength(slotsPerOwner(4))
      expect(counts.newcomers).toBe(0)
      const lone = await runs.run({ user_id: other.userId, agent_id: other.agentId })
      worker.wake(other.userId)
      await until(() => started.includes(lone))
      expect(started).toContain(lone)
      expect(counts.newcomers).toBe(1)
      const ordinary = counts.ordinary
      release.get(burstStarted()[0]!)!()
      await until(() => burstStarted().length === burst.length)
      expect(burstStarted()).toHaveLength(burst.length)
      expect(counts.ordinary).toBeGreaterThan(ordinary)
      expect(counts.newcomers).toBe(1)
    } finally {
      for (const r of release.values()) r()
      await worker.stop()
    }
  })

  // Issue 22 §2 (noisy neighbour, traced in the service): a busy owner's runs end together, and its
  // intake's wakes in that moment, when it held no slot, counted it a newcomer: its claims went through
  // the newcomers' handle, ahead of the other owner's write, 179 times in one burst.
  it('the busy owner is no newcomer in the moment its runs have all ended: its claims stay on the ordinary handle', async () => {
    const busy = await runs.owner('backlog-burst@example.test')
    const burst: string[] = []
    for (let i = 0; i < 7; i++) burst.push(await runs.run({ user_id: busy.userId, agent_id: busy.agentId }))
    const gate = claimGate()
    const started: string[] = []
    let ended = 0
    const release = new Map<string, () => void>()
    // The handler ends its run without a write: a claim held at the gate holds PGlite's one connection.
    const handler = {
      execute: async (run: RunRow) => {
        started.push(run.id)
        await new Promise<void>((resolve) => release.set(run.id, resolve))
        ended++
      },
    }
    const counts = { ordinary: 0, newcomers: 0 }
    const counting = (key: keyof typeof counts) =>
      store.db.withPlugin(gate.plugin).withPlugin({
        transformQuery: (args) => (counts[key]++, args.node),
        transformResult: async (args) => args.result,
      })
    const worker = workerOf(handler, 4, AN_HOUR_MS)
    worker.claimsThrough = counting('ordinary')
    worker.newcomerClaimsThrough = counting('newcomers')
    worker.start()
    try {
      worker.wake()
      await until(() => started.length === slotsPerOwner(4))
      expect(started).toHaveLength(slotsPerOwner(4))
      // All of its runs end; the claim their ends wake is held while the owner holds no slot.
      gate.hold(1)
      for (const id of started) release.get(id)!()
      await gate.reached()
      await until(() => ended === 3)
      await new Promise((resolve) => setImmediate(resolve))
      worker.wake(busy.userId)
      gate.let()
      await until(() => {
        for (const id of started) release.get(id)?.()
        return started.length === burst.length
      })
      expect([...started].sort()).toEqual([...burst].sort())
      expect(counts.newcomers).toBe(0)
    } finally {
      await stopAndEnd(worker, burst, () => {
        gate.let()
        for (const r of release.values()) r()
      })
    }
  })

  // The model-agent bench (docs/benchmarks.md): runs that ended while a claim was in flight left their
  // owner below its share by the time the claim returned, so the worker slept with the burst ready and
  // started the rest only at its idle poll.
  it("runs ending during a claim lose no wake: a burst held to its owner's share still drains", async () => {
    const owner = await runs.owner('share-race@example.test')
    const burst: string[] = []
    for (let i = 0; i < 7; i++) burst.push(await runs.run({ user_id: owner.userId, agent_id: owner.agentId }))
    const gate = claimGate()
    const started: string[] = []
    const release = new Map<string, () => void>()
    // The handler ends its run without a write: a claim held at the gate holds PGlite's one connection.
    const handler = {
      execute: async (run: RunRow) => {
        started.push(run.id)
        await new Promise<void>((resolve) => release.set(run.id, resolve))
      },
    }
    const worker = new RunWorker(
      store.db.withPlugin(gate.plugin),
      handler,
      4,
      (err) => {
        throw err
      },
      30_000,
      undefined,
      AN_HOUR_MS,
    )
    const reached = async (what: string, ok: () => boolean) => {
      await until(ok)
      expect(ok(), what).toBe(true)
    }
    worker.start()
    try {
      worker.wake()
      await reached('the burst takes its share of the slots', () => started.length === 3)
      // Each run that ends wakes a claim; one more run ends while each of the next two is in flight.
      gate.hold(2)
      release.get(started[0]!)!()
      await gate.reached()
      release.get(started[1]!)!()
      await new Promise((resolve) => setTimeout(resolve, 20))
      gate.let()
      await gate.reached()
      release.get(started[2]!)!()
      await new Promise((resolve) => setTimeout(resolve, 20))
      gate.let()
      await reached('the rest of the burst starts as its runs end', () => {
        for (const id of started) release.get(id)?.()
        return started.length === burst.length
      })
      expect([...started].sort()).toEqual([...burst].sort())
    } finally {
      await stopAndEnd(worker, burst, () => {
        gate.let()
        for (const r of release.values()) r()
      })
    }
  })

  // Issue 23, section 7: a model run waiting on its provider held one of 8 slots, so 8 runs at a time
  // ran and the CPU sat idle. Waits leave the slot; the slots still bound the runs working at once.
  it("runs waiting on another service's answer leave their slots, and take one again to go on", async () => {
    const owner = await runs.owner('waits@example.test')
    const burst: string[] = []
    for (let i = 0; i < 12; i++)
      burst.push(await runs.run({ user_id: owner.userId, agent_id: owner.agentId }))
    let answer!: () => void
    const answered = new Promise<void>((resolve) => (answer = resolve))
    const waiting = new Set<string>()
    let working = 0
    let mostWorking = 0
    const done: string[] = []
    const handler = {
      async execute(run: RunRow, lease: Lease) {
        working++
        mostWorking = Math.max(mostWorking, working)
        working--
        await lease.offSlot(async () => {
          waiting.add(run.id)
          await answered
        })
        // Back in a slot: the work after the answer counts against the slots again.
        working++
        mostWorking = Math.max(mostWorking, working)
        await new Promise((resolve) => setTimeout(resolve, 1))
        working--
        await succeed(run, lease)
        done.push(run.id)
      },
    }
    const worker = workerOf(handler, 4, AN_HOUR_MS)
    worker.start()
    try {
      worker.wake()
      await until(() => waiting.size === burst.length)
      // Four slots, one owner: every run of the burst waits at once, none of them in a slot.
      expect(waiting.size).toBe(burst.length)
      answer()
      await until(() => done.length === burst.length)
      expect([...done].sort()).toEqual([...burst].sort())
      // Back from the wait, never more at work than the owner's share of the slots.
      expect(mostWorking).toBeLessThanOrEqual(slotsPerOwner(4))
    } finally {
      answer()
      await worker.stop()
    }
  })

  // The model-agent bench (docs/benchmarks.md): each time one of a busy owner's runs left its slot to
  // wait, the worker claimed, though the only slot free was the one kept for other owners; two claims
  // in three answered nothing, each a statement on the database.
  it("no claim for nothing: one owner's runs leaving and taking back their slots claim only when a claim could fill one", async () => {
    const owner = await runs.owner('claims-for-nothing@example.test')
    const burst: string[] = []
    for (let i = 0; i < 24; i++)
      burst.push(await runs.run({ user_id: owner.userId, agent_id: owner.agentId }))
    const done: string[] = []
    const handler = {
      async execute(run: RunRow, lease: Lease) {
        // Three waits on another service, as a model run's model and tool calls are.
        for (let i = 0; i < 3; i++)
          await lease.offSlot(() => new Promise((resolve) => setTimeout(resolve, 2)))
        await succeed(run, lease)
        done.push(run.id)
      },
    }
    const claims = { made: 0, empty: 0 }
    const worker = workerOf(handler, 4, AN_HOUR_MS)
    worker.claimsThrough = store.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        claims.made++
        if (args.result.rows.length === 0) claims.empty++
        return args.result
      },
    })
    worker.start()
    try {
      worker.wake()
      await until(() => done.length === burst.length, 4_000)
      expect([...done].sort()).toEqual([...burst].sort())
      // Only a claim that filled every slot it asked for may be followed by one that finds nothing.
      expect(claims.empty).toBeLessThanOrEqual(1)
      expect(claims.made).toBeGreaterThan(0)
    } finally {
      await worker.stop()
    }
  })

  // The claims-for-nothing change: while one owner's runs held their share and another owner's run
  // kept leaving its slot and taking it back, each of its wakes started the idle poll's wait again, so
  // a run whose wake was lost waited for the churn to stop, not for the poll.
  it("the idle poll still comes while the worker's own runs keep waking it: a run whose wake was lost starts", async () => {
    const holder = await runs.owner('holds-its-share@example.test')
    const churner = await runs.owner('churns-its-slot@example.test')
    const unannounced = await runs.owner('lost-wake@example.test')
    const held: string[] = []
    for (let i = 0; i < slotsPerOwner(4); i++)
      held.push(await runs.run({ user_id: holder.userId, agent_id: holder.agentId }))
    const churning = await runs.run({ user_id: churner.userId, agent_id: churner.agentId })
    const started: string[] = []
    let stop!: () => void
    const stopped = new Promise<void>((resolve) => (stop = resolve))
    let churns = 0
    const handler = {
      async execute(run: RunRow, lease: Lease) {
        started.push(run.id)
        if (held.includes(run.id)) await stopped
        else if (run.id === churning)
          for (let done = false; !done; churns++)
            await lease.offSlot(async () => {
              done = await Promise.race([
                stopped.then(() => true),
                new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2)),
              ])
            })
        await succeed(run, lease)
      },
    }
    const worker = workerOf(handler, 4, 300)
    worker.start()
    try {
      worker.wake()
      await until(() => started.length === held.length + 1)
      expect(started).toHaveLength(held.length + 1)
      // Queued with no wake at all, as when the change feed's notice was lost.
      const lost = await runs.run({ user_id: unannounced.userId, agent_id: unannounced.agentId })
      const churnsBefore = churns
      await until(() => started.includes(lost), 1_000)
      expect(started).toContain(lost)
      // The other run was still leaving its slot and taking it back all the while.
      expect(churns).toBeGreaterThan(churnsBefore)
    } finally {
      stop()
      await worker.stop()
    }
  })

  it("fair while waiting: one owner's burst waiting on answers leaves another owner's run a slot and room to wait", async () => {
    const busy = await runs.owner('busy-waits@example.test')
    const lone = await runs.owner('lone-waits@example.test')
    const burst: string[] = []
    for (let i = 0; i < 40; i++) burst.push(await runs.run({ user_id: busy.userId, agent_id: busy.agentId }))
    const other = await runs.run({ user_id: lone.userId, agent_id: lone.agentId })
    let answer!: () => void
    const answered = new Promise<void>((resolve) => (answer = resolve))
    const waiting = new Set<string>()
    const handler = {
      async execute(run: RunRow, lease: Lease) {
        await lease.offSlot(async () => {
          waiting.add(run.id)
          await answered
        })
        await succeed(run, lease)
      },
    }
    const worker = workerOf(handler, 4, AN_HOUR_MS)
    worker.start()
    try {
      worker.wake()
      // 4 slots make 32 places to wait: the busy owner takes all but one, and 3 more of its runs
      // wait in the slots it may hold; the slot and the place kept are the other owner's.
      const share = slotsPerOwner(4 * WAITS_PER_SLOT)
      const busyWaiting = () => burst.filter((id) => waiting.has(id)).length
      await until(() => waiting.has(other) && busyWaiting() >= share + slotsPerOwner(4), 6_000)
      expect(waiting.has(other)).toBe(true)
      expect(busyWaiting()).toBe(share + slotsPerOwner(4))
    } finally {
      await stopAndEnd(worker, [...burst, other], answer)
    }
  })

  // A run whose process keeps dying under it (issue 22, section 2) fails after MAX_LAPSES, saying why.
  it('a run whose lease lapsed MAX_LAPSES times fails as crashed, and its entry in flight ends with it', async () => {
    const id = await runs.run({
      status: 'running',
      executions: MAX_LAPSES,
      lapses: MAX_LAPSES - 1,
      lease_holder: 'w_dead#3',
      lease_expires_at: new Date(Date.now() - 60_000),
    })
    await store.db
      .insertInto('run_steps')
      .values({ run_id: id, seq: 0, key: 'big', kind: 'step', status: 'running', attempts: '[]' })
      .execute()
    const worker = workerOf({ execute: async () => {} }, 1)
    worker.start()
    try {
      let row
      for (let i = 0; i < 4_000; i++) {
        row = await store.db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
        if (row.status !== 'running') break
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      expect(row!.status).toBe('failed')
      expect(row!.lapses).toBe(MAX_LAPSES)
      expect(row!.error).toMatchObject({ code: 'crashed' })
      expect((row!.error as { message: string }).message).toMatch(/stopped .* 3 times/)
      const step = await store.db
        .selectFrom('run_steps')
        .selectAll()
        .where('run_id', '=', id)
        .executeTakeFirstOrThrow()
      expect([step.status, (step.error as { code: string }).code]).toEqual(['failed', 'crashed'])
    } finally {
      await worker.stop()
    }
  })
})

/** Holds the worker's next claims (its one call of claim_runs) until let go, so runs can end meanwhile. */
function claimGate() {
  let holds = 0
  const claims = new Set<QueryId>()
  let open: (() => void) | undefined
  let arrived: (() => void) | undefined
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      const node = args.node as { kind: string; sqlFragments?: readonly string[] }
      if (holds > 0 && node.kind === 'RawNode' && node.sqlFragments?.join('').includes('claim_runs(')) {
        holds--
        claims.add(args.queryId)
      }
      return args.node
    },
    async transformResult(args) {
      if (claims.delete(args.queryId)) {
        await new Promise<void>((resolve) => {
          open = resolve
          arrived?.()
        })
      }
      return args.result
    },
  }
  return {
    plugin,
    hold: (n: number) => (holds = n),
    reached: () => (open ? Promise.resolve() : new Promise<void>((resolve) => (arrived = resolve))),
    let: () => {
      const go = open
      open = undefined
      arrived = undefined
      go?.()
    },
  }
}
