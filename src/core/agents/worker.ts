import { sql } from 'kysely'
import { randomToken } from '../ids.ts'
import { DEFAULT_RUN_LEASE_MS } from '../config.ts'
import { noMetrics, type Metrics } from '../metrics.ts'
import type { Db } from '../store/database.ts'
import { asOwner } from '../store/statement-owner.ts'
import type { RunRow } from './runs.ts'

/**
 * How often an idle worker looks for work it was not told about. Runs queued in this process wake it
 * at once, runs queued by another process through the store's change feed (services.ts), runs put
 * back until later at their time (wakeAt); this poll is only the safety net for a wake that was lost
 * (the feed's connection was down, the process that would have woken it died).
 */
const IDLE_POLL_MS = 5_000
/** How often a worker looks for runs whose holder died. */
const RECLAIM_EVERY_MS = 2_000
/**
 * The longest a claim waits while this process's webhook intake takes a burst: runs still start at
 * least this often meanwhile, and the backlog drains at full speed after it.
 */
const MAX_CLAIM_DEFERRAL_MS = 50
/** How often a deferred claim looks again whether the intake is done. */
const DEFERRAL_CHECK_MS = 2

/** What a worker does with a claimed run; it must end the run or put it back before returning. */
export interface RunHandler {
  execute(run: RunRow, lease: Lease): Promise<void>
}

/**
 * A worker's hold on one run: one claim. `holder` is the claim's fencing token, new at every claim
 * (this process's id and the run's execution number), and every write to the run and its timeline
 * requires it (run-state.ts). So an execution that stalled past its lease writes nothing once the
 * run was claimed again, even when the same process claimed it.
 */
export interface Lease {
  readonly holder: string
  /**
   * False once the run was taken from this claim, or once renewals failed for as long as the lease
   * lasts (the database may have let it lapse): the execution stops acting.
   */
  held(): boolean
  /**
   * Aborted when the worker stops: a retry waiting between attempts hands its run back (to resume at
   * the same time, here after a restart or on another instance) instead of holding the shutdown.
   */
  readonly stopping: AbortSignal
  /**
   * Runs `wait`, a wait on another service (a model provider's answer), without holding one of the
   * worker's slots, when the bound on such waits allows (RunWorker, "Slots and waits"); the run takes
   * a slot again before it goes on. The claim and the lease are unchanged: the run stays in hand.
   */
  offSlot<T>(wait: () => Promise<T>): Promise<T>
}

/** Owners whose last claim a worker remembers for the round-robin. */
const MAX_REMEMBERED_OWNERS = 1_000

/**
 * The most of this worker's slots one owner's runs may hold: all but one, from four slots up. The
 * slot kept is for any other owner's run, so it starts as soon as it is claimed rather than when
 * one of the busy owner's runs ends: claims were already fair, but with every slot held by one
 * owner's burst another owner's run waited for a whole run of that burst to end (up to 1.7 s in
 * the noisy-neighbour bench, docs/benchmarks.md). Below four slots, keeping one would cost a lone
 * owner too large a share of the worker.
 */
export function slotsPerOwner(concurrency: number): number {
  return concurrency >= 4 ? concurrency - 1 : concurrency
}

/**
 * How many runs may wait on another service's answer out of a slot, per slot (RunWorker, "Slots and
 * waits"). A model run spends most of its time waiting on its provider; holding a slot meanwhile,
 * 8 slots carried 8 runs and the worker's CPU sat idle (27 runs/s against a goal of 200,
 * docs/benchmarks.md, "Model agents"). A waiting run holds its transcript in memory and no database
 * connection, so the bound is on memory and on the provider, not on the CPU.
 */
export const WAITS_PER_SLOT = 8

/** Executions ended by a lapsed lease after which a run is failed rather than claimed again. */
export const MAX_LAPSES = 3

const CRASHED = {
  code: 'crashed',
  message: `the process executing this run stopped (it crashed, was killed or stalled) ${MAX_LAPSES} times while the run was in hand, so it is not started again; the run itself may be what stops it: look at its last step, then rerun it`,
}

/**
 * Executes queued runs. The runs table is the queue (docs/architecture.md, "Runs are their own
 * queue"): a worker claims ready runs with `FOR UPDATE SKIP LOCKED`, so two processes never take the
 * same one, and holds each with a lease it renews; a run whose holder died is claimed again when the
 * lease lapses and resumes after its last completed step. Enqueues in this process wake the worker at
 * once; another process's wake it through the change feed (services.ts).
 */
export class RunWorker {
  private readonly holder = `w_${randomToken(9)}`
  /**
   * Whether this process's webhook intake is taking a burst of deliveries. Claims wait for it (at
   * most MAX_CLAIM_DEFERRAL_MS): on a machine's few cores acknowledging deliveries comes first,
   * because a platform whose deliveries time out sends them again and in the end stops sending,
   * while a queued run loses nothing by starting a little later (docs/architecture.md).
   */
  intakeBusy: () => boolean = () => false
  /**
   * Where claims are made: the store's `urgent` handle (database.ts) when set. A claim is one
   * statement for several runs, and another owner's run waited for it behind the busy owner's runs'
   * statements on the embedded store's one connection (docs/scaling.md, "One user's burst").
   */
  claimsThrough: Db | undefined
  /**
   * Where a claim woken by a newcomer (an owner holding none of this worker's slots, and not given its
   * whole share by the last claim: `backlogged`) is made: the
   * store's `soonest` handle, which goes right after the statement in progress. In the intake's lane
   * that owner's run, already written, waited behind the busy owner's next write and the run
   * statement it alternates with. The busy owner's own claims stay in the intake's lane: ahead of
   * everything, they put the other owner's next write behind them (docs/scaling.md, "One user's burst").
   */
  newcomerClaimsThrough: Db | undefined
  /** A wake brought runs of an owner with none of this worker's slots: the next claim does not wait for the intake. */
  private newcomer = false
  /**
   * Owners the last claim gave their whole share of the slots (slotsPerOwner): they may have more
   * ready, a backlog, so their wakes are not a newcomer's even in the moment they hold no slot. A
   * busy owner's runs end together (their ends share a write), and its intake's wakes in that moment
   * sent its claims through the newcomers' handle, ahead of the other owner's write (issue 22 §2).
   */
  private backlogged: ReadonlySet<string> = new Set()
  private lastClaimAt = 0
  /** Every execution in hand, in a slot or waiting out of one: stop() waits for them. */
  private readonly active = new Set<Promise<void>>()
  /** Runs holding a slot: claims fill the slots that are free. */
  private inSlots = 0
  /** This worker's runs holding slots, by owner (slotsPerOwner). */
  private readonly activeByOwner = new Map<string, number>()
  /** Runs waiting on another service out of a slot, in all and by owner (offSlot). */
  private waiting = 0
  private readonly waitingByOwner = new Map<string, number>()
  /** Slots a claim in flight may fill. */
  private reserved = 0
  /**
   * Runs whose wait ended, each waiting for a slot, first come first served among owners below their
   * share of the slots: they go before new claims.
   */
  private readonly returning: Array<{ owner: string; take: () => void }> = []
  /** The most runs waiting out of a slot at once. */
  private readonly waitLimit: number
  private running = false
  private stopping = new AbortController()
  private wakeUp: (() => void) | null = null
  private loop: Promise<void> | null = null
  private sweeper: Promise<void> | null = null
  private endSweepWait: (() => void) | null = null

  constructor(
    private readonly db: Db,
    private readonly handler: RunHandler,
    private readonly concurrency: number,
    private readonly onError: (err: unknown) => void = () => {},
    /** How long a claimed run is held without a heartbeat: a process killed mid-run gives it up after this (config runLeaseMs). */
    private readonly leaseMs: number = DEFAULT_RUN_LEASE_MS,
    private readonly metrics: Metrics = noMetrics,
    /** How often an idle worker looks for runs it was not told about (tests set it long, to prove every wake arrives). */
    private readonly idlePollMs: number = IDLE_POLL_MS,
  ) {
    this.waitLimit = concurrency * WAITS_PER_SLOT
  }

  start(): void {
    if (this.running) return
    this.running = true
    if (this.stopping.signal.aborted) this.stopping = new AbortController()
    this.loop = this.run()
    this.sweeper = this.sweep()
  }

  /** Work may be waiting: set by every wake, so one that comes while the loop is claiming is not lost. */
  private signaled = false
  /**
   * The last claim filled every free slot, so more runs may be ready than were taken. A claim made
   * with no slot free counts too: it was a wake that could not be served, so the next run to end
   * must wake the loop.
   */
  private saturated = false
  /**
   * Something outside the worker's own slots happened since the last claim began: a run was queued
   * or came due, another process said so, or the idle poll came round. Without it, a slot freed by
   * the worker's own runs is claimed for only when a claim could fill it (mayFill).
   */
  private news = true
  /** The last claim filled every slot it asked for. */
  private lastClaimFull = false

  /**
   * Work may be waiting; `owner`, when known, is whose. An owner holding none of this worker's slots
   * is claimed for at once, without the wait for the intake (yieldToIntake): that wait is for the
   * busy owner's backlog, and another owner's run waited in it too.
   */
  wake(owner?: string): void {
    if (
      owner !== undefined &&
      !this.activeByOwner.has(owner) &&
      !this.waitingByOwner.has(owner) &&
      !this.backlogged.has(owner)
    )
      this.newcomer = true
    this.news = true
    this.signal()
  }

  /** Wakes the loop without news: a slot of the worker's own came free (leaveSlot). */
  private signal(): void {
    this.signaled = true
    this.wakeUp?.()
  }

  /**
   * Whether a claim with no news since the last one could take anything: the last one filled its
   * slots, so there may be more of anyone's; or an owner it gave its whole share (backlogged) now
   * holds fewer slots, so there may be more of theirs. Otherwise every owner's ready runs were taken,
   * and the only free slot may be the one kept for other owners (slotsPerOwner), whose new runs come
   * with news: a busy owner's runs leaving their slots, five times a model run, each made a claim that
   * could only answer nothing (two claims in three in the model-agent bench, docs/benchmarks.md).
   */
  private mayFill(): boolean {
    if (this.lastClaimFull) return true
    const share = slotsPerOwner(this.concurrency)
    for (const owner of this.backlogged) if ((this.activeByOwner.get(owner) ?? 0) < share) return true
    return false
  }

  private dueTimer: NodeJS.Timeout | null = null
  private dueAt = Number.POSITIVE_INFINITY

  /** Wakes the worker at `at`, when a run put back until then becomes ready (the earliest such time wins). */
  wakeAt(at: Date): void {
    const when = at.getTime()
    if (when >= this.dueAt && this.dueTimer) return
    if (this.dueTimer) clearTimeout(this.dueTimer)
    this.dueAt = when
    this.dueTimer = setTimeout(
      () => {
        this.dueTimer = null
        this.dueAt = Number.POSITIVE_INFINITY
        this.wake()
      },
      // A little after: the claim compares with the database's clock.
      Math.max(0, when - Date.now()) + 5,
    )
    this.dueTimer.unref()
  }

  /** Stops claiming and waits for runs in hand; an unfinished run is picked up again after its lease. */
  async stop(): Promise<void> {
    this.running = false
    this.stopping.abort()
    if (this.dueTimer) clearTimeout(this.dueTimer)
    this.dueTimer = null
    this.wake()
    this.endSweepWait?.()
    await Promise.all([this.loop, this.sweeper])
    await Promise.allSettled([...this.active])
  }

  /**
   * The sweep for runs whose holder died, on its own timer: on a large runs table it can take a
   * while, and claims must not wait for it (they did, and every run queued meanwhile started late).
   */
  private async sweep(): Promise<void> {
    while (this.running) {
      await this.reclaim().then((requeued) => {
        if (requeued) this.wake()
      }, this.onError)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, RECLAIM_EVERY_MS)
        this.endSweepWait = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.signaled = false
      // Runs coming back from a wait take free slots first; the claim gets what is left.
      this.fill()
      const free = this.concurrency - this.inSlots
      let claimed: RunRow[] = []
      // The owners' runs in hand as the claim counts them (runs may end while it is in flight).
      const heldAtClaim = new Map(this.activeByOwner)
      // The poll comes due even while the worker's own runs keep waking the loop: each wake would
      // otherwise start its wait again, and a run whose wake was lost waited for them to stop.
      const pollDue = Date.now() - this.lastClaimAt >= this.idlePollMs
      const ask = free > 0 && (this.news || pollDue || this.mayFill())
      if (ask) {
        // News that comes during the claim is for the next one.
        this.news = false
        await this.yieldToIntake()
        const newcomer = this.newcomer
        this.newcomer = false
        // The free slots are the claim's while it is in flight: a run back from a wait meanwhile
        // queues for a slot rather than take one the claim may fill.
        this.reserved = free
        try {
          claimed = await this.claim(free, heldAtClaim, newcomer)
        } catch (err) {
          // Whatever woke this claim is still to be served: the next wake claims again.
          this.news = true
          this.onError(err)
        }
        this.reserved = 0
        this.lastClaimAt = Date.now()
        this.lastClaimFull = claimed.length === free
        this.backlogged = this.ownersAtShare(claimed, heldAtClaim)
        // An owner the claim gave its whole share of the slots may have more ready: the end of one of
        // its runs must wake the loop too. Counted as the claim saw it: runs that ended during the claim
        // had left the owner below its share by the time it returned, the loop slept with runs ready,
        // and the burst crawled on at the idle poll (the model-agent bench's runs, 3 at a time of 7).
        this.saturated = this.lastClaimFull || this.backlogged.size > 0
      } else if (free === 0) {
        // A wake with no slot free: the next run to leave one wakes the loop, and the news waits for it.
        this.saturated = true
      }
      for (const run of claimed) {
        if (run.executions === 1 && run.started_at)
          this.metrics.runStarted(Math.max(0, run.started_at.getTime() - run.created_at.getTime()) / 1000)
        this.track(run)
      }
      // Slots the claim did not fill go to the runs that came back from a wait during it.
      this.fill()
      // Claim again at once only when there may be more: a full claim, or news since this one began.
      const more = ask && this.lastClaimFull && this.inSlots < this.concurrency
      if (!this.signaled && !more) await this.idle()
    }
  }

  /** The owners the claim left holding as many of this worker's slots as one owner may (slotsPerOwner). */
  private ownersAtShare(claimed: RunRow[], heldAtClaim: ReadonlyMap<string, number>): Set<string> {
    const held = new Map(heldAtClaim)
    for (const run of claimed) held.set(run.user_id, (held.get(run.user_id) ?? 0) + 1)
    const share = slotsPerOwner(this.concurrency)
    return new Set([...held].filter(([, n]) => n >= share).map(([owner]) => owner))
  }

  private async yieldToIntake(): Promise<void> {
    while (
      this.running &&
      !this.newcomer &&
      this.intakeBusy() &&
      Date.now() - this.lastClaimAt < MAX_CLAIM_DEFERRAL_MS
    ) {
      await new Promise((resolve) => setTimeout(resolve, DEFERRAL_CHECK_MS))
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      // The poll is news: it stands for any wake that was lost.
      const timer = setTimeout(() => {
        this.news = true
        done()
      }, this.idlePollMs)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.wakeUp = () => {
        this.wakeUp = null
        done()
      }
    })
  }

  private track(run: RunRow): void {
    let lost = false
    // When the last renewal that succeeded was sent: the lease runs from no earlier than that.
    let confirmedAt = Date.now()
    const heartbeat = setInterval(() => {
      const sentAt = Date.now()
      void this.renew(run.id, run.lease_holder!).then((ok) => {
        if (ok) confirmedAt = Math.max(confirmedAt, sentAt)
        else lost = true
      }, this.onError)
    }, this.leaseMs / 3)
    const lease: Lease = {
      holder: run.lease_holder!,
      // A stalled database can fail renewals without answering "no": once they failed for a whole
      // lease, the sweep on another process may have handed the run on, so this one stops acting.
      held: () => !lost && Date.now() - confirmedAt < this.leaseMs,
      stopping: this.stopping.signal,
      offSlot: (wait) => this.offSlot(run.user_id, wait),
    }
    // In its slot before the handler starts: a handler may leave the slot before its first await.
    this.enterSlot(run.user_id)
    // Its statements are its owner's: on the embedded store they take turns with other owners'
    // (store/statement-owner.ts), so another owner's run waits for one of a burst's statements, not all.
    const work = asOwner(run.user_id, () => this.handler.execute(run, lease))
      .catch(this.onError)
      .finally(() => {
        clearInterval(heartbeat)
        this.active.delete(work)
        this.leaveSlot(run.user_id)
      })
    this.active.add(work)
  }

  /*
   * Slots and waits (docs/scaling.md, "Model runs wait out of their slots"). The slots bound the runs
   * that use this process's CPU; a run waiting on another service's answer (a model run's model call
   * or tool call) uses none,
   * so it waits out of its slot, under a bound of its own (WAITS_PER_SLOT), and takes a slot again
   * when the answer is in, before any new claim. Both bounds are fair between owners in the same
   * way: one owner holds at most slotsPerOwner of each, so another owner's run always finds a slot
   * to start in and room to wait. A run past either bound simply waits in its slot, as before.
   * Nothing about the run's durability changes: it stays claimed under the same lease (renewed
   * meanwhile), and every write it makes is fenced by that claim (run-state.ts), so a crash while it
   * waits resumes it from its stored timeline exactly as a crash while it held a slot did.
   */

  private enterSlot(owner: string): void {
    this.inSlots++
    this.activeByOwner.set(owner, (this.activeByOwner.get(owner) ?? 0) + 1)
  }

  /** A slot is given up: to the first run back from a wait, else to the claim loop. */
  private leaveSlot(owner: string): void {
    this.inSlots--
    const held = (this.activeByOwner.get(owner) ?? 1) - 1
    if (held > 0) this.activeByOwner.set(owner, held)
    else this.activeByOwner.delete(owner)
    this.fill()
    if (this.saturated) this.signal()
  }

  /**
   * Free slots to the runs back from a wait, in the order they came back, each only while its owner
   * holds less than its share (slotsPerOwner): the slot kept for other owners stays theirs to claim.
   */
  private fill(): void {
    const share = slotsPerOwner(this.concurrency)
    while (this.inSlots + this.reserved < this.concurrency) {
      const i = this.returning.findIndex((r) => (this.activeByOwner.get(r.owner) ?? 0) < share)
      if (i < 0) return
      const [next] = this.returning.splice(i, 1)
      this.enterSlot(next!.owner)
      next!.take()
    }
  }

  private async offSlot<T>(owner: string, wait: () => Promise<T>): Promise<T> {
    const waitingHere = this.waitingByOwner.get(owner) ?? 0
    if (this.waiting >= this.waitLimit || waitingHere >= slotsPerOwner(this.waitLimit)) return wait()
    this.waiting++
    this.waitingByOwner.set(owner, waitingHere + 1)
    this.leaveSlot(owner)
    try {
      return await wait()
    } finally {
      this.waiting--
      const left = (this.waitingByOwner.get(owner) ?? 1) - 1
      if (left > 0) this.waitingByOwner.set(owner, left)
      else this.waitingByOwner.delete(owner)
      await new Promise<void>((take) => {
        this.returning.push({ owner, take })
        this.fill()
      })
    }
  }

  /**
   * Ready runs, fairly between their owners (docs/architecture.md, "Fair between users"): each
   * owner's ready runs take turns after the runs that owner already has running, and among equal turns
   * the owner this worker served longest ago goes first (round-robin), so one owner's burst of
   * thousands waits behind another owner's single run instead of in front of it. The owners are
   * found by skipping through an index (one probe per owner, not one per queued run), each owner's
   * oldest ready runs are locked with `SKIP LOCKED` (so two workers never take the same one), and the
   * earliest turns win. No owner is given more of this worker's slots than slotsPerOwner allows.
   * Each claim writes its own fencing token into `lease_holder`.
   */
  private async claim(
    limit: number,
    heldByOwner: ReadonlyMap<string, number>,
    newcomer: boolean,
  ): Promise<RunRow[]> {
    // The statement is the database function claim_runs (store/migrations.ts, 0022): planned once per connection.
    const { rows } = await sql<RunRow>`
      select * from claim_runs(${this.holder}, ${this.leaseMs}::float8, ${limit}::integer,
        ${slotsPerOwner(this.concurrency)}::integer, ${JSON.stringify(Object.fromEntries(heldByOwner))}::jsonb,
        ${JSON.stringify(Object.fromEntries(this.served))}::jsonb)`.execute(
      (newcomer ? this.newcomerClaimsThrough : undefined) ?? this.claimsThrough ?? this.db,
    )
    for (const run of rows) this.serve(run.user_id)
    return rows
  }

  /** When this worker last claimed a run of each owner (a claim counter): equal turns go to the owner served longest ago. */
  private readonly served = new Map<string, number>()
  private claims = 0

  private serve(userId: string): void {
    this.served.delete(userId)
    this.served.set(userId, ++this.claims)
    // Owners not served for a long while are forgotten (the oldest first): they count as never served.
    if (this.served.size > MAX_REMEMBERED_OWNERS) this.served.delete(this.served.keys().next().value!)
  }

  /**
   * Runs whose holder stopped renewing (its process died) go back to the queue, to resume after their
   * last stored step; delivered runs whose external agent let the deadline pass fail.
   */
  private async reclaim(): Promise<number> {
    // A run whose process died under it MAX_LAPSES times is most likely what kills it (a huge
    // template, a step that exhausts memory): it fails, saying so, instead of taking down process
    // after process for ever. Its timeline keeps what its executions did.
    await sql`
      with crashed as (
        update runs set status = 'failed', finished_at = now(), lease_holder = null, lease_expires_at = null,
          lapses = lapses + 1, token_hash = null, token_sealed = null, error = ${JSON.stringify(CRASHED)}::jsonb
        where id in (select id from runs where status = 'running' and lease_expires_at < now() and lapses >= ${MAX_LAPSES - 1}
          for update skip locked)
        returning id
      )
      -- The entry in flight when the last process stopped ends with the run, not "running" for ever.
      update run_steps set status = 'failed', finished_at = now(), error = ${JSON.stringify(CRASHED)}::jsonb
      where status = 'running' and run_id in (select id from crashed)`.execute(this.db)
    // A run at its last lapse is never put back: its lease could expire between the statement above
    // and this one, and it was then claimed for a fourth execution (CI saw it, on the embedded store,
    // where other statements take turns between these two). It waits for the next sweep to fail it.
    const requeued = await sql`
      update runs set status = 'queued', lease_holder = null, lease_expires_at = null, lapses = lapses + 1
      where id in (select id from runs where status = 'running' and lease_expires_at < now() and lapses < ${MAX_LAPSES - 1}
        for update skip locked)`.execute(this.db)
    // An external agent that never reported its run finished: the run ends rather than stays running for ever.
    await sql`
      update runs set status = 'failed', finished_at = now(), token_hash = null, token_sealed = null,
        error = ${JSON.stringify({ code: 'timed_out', message: 'the external agent did not report the run finished within a day of its delivery' })}::jsonb
      where id in (select id from runs where status = 'running' and lease_holder is null and available_at < now() for update skip locked)`.execute(
      this.db,
    )
    // A model run waiting for a person whose approval expired goes back to the queue: it resumes with
    // the expired calls denied (models/runner.ts). available_at holds the expiry while it waits.
    const expired = await sql`
      update runs set status = 'queued'
      where id in (select id from runs where status = 'waiting_for_approval' and available_at < now() for update skip locked)`.execute(
      this.db,
    )
    return Number(requeued.numAffectedRows ?? 0n) + Number(expired.numAffectedRows ?? 0n)
  }

  private async renew(runId: string, token: string): Promise<boolean> {
    const result = await this.db
      .updateTable('runs')
      .set({ lease_expires_at: sql`now() + ${this.leaseMs} * interval '1 millisecond'` })
      .where('id', '=', runId)
      .where('lease_holder', '=', token)
      .where('status', '=', 'running')
      .executeTakeFirst()
    return result.numUpdatedRows > 0n
  }
}
