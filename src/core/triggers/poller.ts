import { sql } from 'kysely'
import { planAtLeast } from '../access/plans.ts'
import type { Users } from '../access/users.ts'
import type { Agents } from '../agents/agents.ts'
import type { QueueCap } from '../agents/queue-cap.ts'
import type { Runs } from '../agents/runs.ts'
import type { Integrations } from '../connections/integrations.ts'
import { randomToken } from '../ids.ts'
import type { Db } from '../store/database.ts'
import type { StepContexts } from '../tools/step-context.ts'
import { acceptEvents, type Match } from './accept.ts'
import type { TriggerRegistry } from './catalog.ts'
import { runInputs, type Mapping } from './mapping.ts'
import type { RemoteWebhooks } from './remote-webhooks.ts'
import type { SubscriptionRow, Subscriptions } from './subscriptions.ts'
import { OWN_CHANGE, type DeliveryLog, type SubscriptionOutcome } from './delivery-log.ts'
import { asOwner } from '../store/statement-owner.ts'

const TICK_MS = 1_000
/**
 * How long a lane sleeps when nothing is due: until the earliest next poll, at most this, or until
 * woken (`wake`, by the change feed when a polled subscription is activated on any instance). The
 * bound is the safety net for a notification lost while the feed's connection was down.
 */
const MAX_IDLE_MS = 60_000
/** A claimed poll holds its subscription this long: a process killed mid-poll gives it up after this. */
const POLL_LEASE_MS = 60_000
/**
 * Polls in flight at once in one process. Each lane claims and polls one due subscription at a time,
 * so a slow poll (a slow platform, a large board) holds up its own lane, not every other poll, and a
 * process with thousands of polled subscriptions does not open thousands of requests at once.
 */
const POLL_LANES = 4

/** The poll's claim lapsed and another poll took the subscription: this one's result is dropped. */
class ClaimLost extends Error {}

/**
 * Runs the polled triggers (docs/architecture.md, "Polls"). Each due subscription is claimed by
 * moving its next poll time forward with `FOR UPDATE SKIP LOCKED` and writing a new claim token, so
 * one process polls it at a time; the events found, their runs and the new cursor are committed in
 * one transaction, and only under the claim that read them, so a crash between enqueue and cursor
 * loses nothing and runs nothing twice, and a poll that was slower than its claim cannot move the
 * cursor back. It also retries failed webhook removals.
 */
export class Poller {
  private readonly loops: Array<Promise<void>> = []
  private readonly sleepers = new Set<() => void>()
  private stopped = true
  /** The per-plan cap on waiting runs (set by the composition root). */
  queueCap: QueueCap | undefined
  /** Where each poll's outcome is kept for the subscription's events list (services.ts sets it). */
  log: DeliveryLog | null = null

  constructor(
    private readonly db: Db,
    private readonly triggers: TriggerRegistry,
    private readonly users: Users,
    private readonly agents: Agents,
    private readonly runs: Runs,
    private readonly contexts: StepContexts,
    private readonly subscriptions: Subscriptions,
    private readonly webhooks: RemoteWebhooks,
    private readonly integrations: Integrations,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    for (let i = 0; i < POLL_LANES; i++) this.loops.push(this.lane())
    this.loops.push(this.cleanups())
  }

  /** Stops claiming and waits for the polls in hand to commit. */
  async stop(): Promise<void> {
    this.stopped = true
    for (const wake of this.sleepers) wake()
    await Promise.all(this.loops.splice(0))
  }

  private async lane(): Promise<void> {
    while (!this.stopped) {
      let due: SubscriptionRow | undefined
      try {
        due = await this.claimOne()
      } catch (err) {
        this.onError(err)
      }
      // The poll works as its subscription's owner, so on the embedded store its statements wait in
      // that owner's line, as a run's and a delivery's do (docs/scaling.md, "One user's burst").
      if (due) await asOwner(due.user_id, () => this.pollOne(due)).catch(this.onError)
      else await this.untilDue()
    }
  }

  /** A polled subscription may have become due sooner than the lanes expect (one was activated). */
  wake(): void {
    for (const wake of this.laneSleepers) wake()
  }

  private readonly laneSleepers = new Set<() => void>()
  /** Claims made (a statement each), for tests: none while nothing is polled. */
  claims = 0

  /**
   * Nothing was due: sleeps until the earliest next poll (one read), or, when nothing is polled at
   * all, until woken. It claimed four times a second with nothing polled (issue 22, §2).
   */
  private async untilDue(): Promise<void> {
    // Listening before the read: an activation committed after the read still wakes this lane.
    let wake: () => void = () => {}
    const woken = new Promise<void>((resolve) => (wake = resolve))
    this.laneSleepers.add(wake)
    let ms = MAX_IDLE_MS
    try {
      const next = await this.nextPollAt()
      if (next) ms = Math.min(MAX_IDLE_MS, Math.max(TICK_MS, next.getTime() - Date.now()))
    } catch (err) {
      this.onError(err)
      ms = TICK_MS
    }
    // A wake ends the sleep early, and so does stop() (sleepers).
    const timer = setTimeout(wake, ms)
    this.sleepers.add(wake)
    if (this.stopped) wake()
    await woken
    clearTimeout(timer)
    this.sleepers.delete(wake)
    this.laneSleepers.delete(wake)
  }

  private polledTriggerIds(): string[] {
    return this.triggers
      .list()
      .filter((t) => t.mode === 'polled')
      .map((t) => t.id)
  }

  private async nextPollAt(): Promise<Date | undefined> {
    const polled = this.polledTriggerIds()
    if (!polled.length) return undefined
    const row = await this.db
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.min('next_poll_at').as('next'))
      .where('status', '=', 'active')
      .where('trigger_id', 'in', polled)
      .executeTakeFirst()
    return row?.next ? new Date(row.next as unknown as string | Date) : undefined
  }

  private async cleanups(): Promise<void> {
    while (!this.stopped) {
      await this.webhooks.retryCleanups().catch(this.onError)
      await this.sleep(TICK_MS)
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.sleepers.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.sleepers.add(done)
    })
  }

  private async claimOne(): Promise<SubscriptionRow | undefined> {
    const polled = this.polledTriggerIds()
    if (!polled.length) return undefined
    this.claims++
    const { rows } = await sql<SubscriptionRow>`
      update subscriptions set next_poll_at = now() + ${POLL_LEASE_MS} * interval '1 millisecond',
        poll_claim = ${randomToken(12)}
      where id in (
        select id from subscriptions
        where status = 'active' and next_poll_at <= now() and trigger_id in (${sql.join(polled)})
        order by next_poll_at limit 1
        for update skip locked)
      returning *`.execute(this.db)
    return rows[0]
  }

  private async pollOne(row: SubscriptionRow): Promise<void> {
    const registered = this.triggers.get(row.trigger_id)
    const user = await this.users.get(row.user_id)
    if (!registered?.trigger.poll || !user) return
    const required = registered.trigger.requiredPlan
    if (required && !planAtLeast(user.plan, required)) return
    try {
      const agent = await this.agents.get(user.id, row.agent_id)
      const { ctx } = await this.contexts.open(
        user,
        registered.platform,
        row.integration_id,
        `trigger:${row.integration_id}`,
      )
      const config = registered.trigger.config.parse(row.config)
      const result = await registered.trigger.poll(
        ctx,
        config,
        row.poll_cursor as Record<string, unknown> | null,
        Date.now(),
      )
      const own = row.start_on_own_changes
        ? undefined
        : (await this.integrations.get(user.id, row.integration_id)).external_id
      // No loops, as in the intake: what the integration's own account did starts nothing, unless asked.
      const wanted = result.events.filter(
        ({ candidate }) => own === undefined || candidate.actorId === undefined || candidate.actorId !== own,
      )
      const prepared = await Promise.all(
        wanted.map(async ({ candidate, event }) => {
          const match: Match = {
            subscriptionId: row.id,
            userId: user.id,
            agentId: row.agent_id,
            event,
            ...(await runInputs(row.mapping as Mapping, event, agent.inputs, user.id)),
          }
          return { candidate, match }
        }),
      )
      // The owner's queue is full: the events are kept with failed runs saying so (as at the intake).
      const starting = prepared.filter(({ match }) => !match.mappingError)
      const refused = starting.length ? await this.queueCap?.refusal(user, starting.length) : null
      if (refused) for (const { match } of starting) match.refused = refused
      let started = 0
      let outcomes: Array<{ duplicate: boolean; runIds: string[] }> = []
      await this.db.transaction().execute(async (trx) => {
        // The cursor moves with the runs it started, only while the subscription is still active, and
        // only under this poll's claim: a poll slower than its claim lost it to another, whose cursor
        // may be newer, so this one writes nothing at all.
        const moved = await trx
          .updateTable('subscriptions')
          .set({
            poll_cursor: JSON.stringify(result.cursor),
            next_poll_at: new Date(Date.now() + this.intervalMs),
            poll_claim: null,
            last_error: null,
            last_error_at: null,
          })
          .where('id', '=', row.id)
          .where('status', '=', 'active')
          .where('poll_claim', '=', row.poll_claim)
          .executeTakeFirst()
        if (moved.numUpdatedRows === 0n) throw new ClaimLost()
        outcomes = await acceptEvents(
          trx,
          prepared.map(({ candidate, match }) => ({ source: `poll:${row.id}`, candidate, matches: [match] })),
        )
        started = outcomes.reduce((n, o) => n + o.runIds.length, 0)
      })
      if (started) this.runs.onReady()
      this.recordPoll(row, result.events, prepared, outcomes)
    } catch (err) {
      if (err instanceof ClaimLost) return
      this.log?.record({
        source: `poll:${row.id}`,
        userId: row.user_id,
        outcome: 'failed',
        reason: `the poll failed: ${err instanceof Error ? err.message : String(err)}`,
      })
      await this.subscriptions.recordError(row.id, err)
      await this.db
        .updateTable('subscriptions')
        .set({ next_poll_at: new Date(Date.now() + this.intervalMs), poll_claim: null })
        .where('id', '=', row.id)
        .where('status', '=', 'active')
        .where('poll_claim', '=', row.poll_claim)
        .execute()
    }
  }

  /** Each event a poll found, with what became of it, or one line saying the poll found nothing new. */
  private recordPoll(
    row: SubscriptionRow,
    found: Array<{ candidate: { dedupeKey: string; type: string } }>,
    prepared: Array<{ candidate: { dedupeKey: string; type: string }; match: Match }>,
    outcomes: Array<{ duplicate: boolean; runIds: string[] }>,
  ): void {
    if (!this.log) return
    const source = `poll:${row.id}`
    const base = { source, userId: row.user_id }
    if (found.length === 0) {
      const reason = row.poll_cursor
        ? 'nothing new'
        : 'the first poll notes where to start: nothing from before the activation starts a run'
      this.log.record({ ...base, outcome: 'polled', reason })
      return
    }
    const kept = new Map(prepared.map((p, i) => [p.candidate.dedupeKey, { p, o: outcomes[i] }]))
    for (const { candidate } of found) {
      const done = kept.get(candidate.dedupeKey)
      const own: SubscriptionOutcome = !done
        ? { outcome: 'skipped', reason: OWN_CHANGE }
        : done.o?.duplicate
          ? { outcome: 'duplicate', reason: 'this event was found before; nothing started again' }
          : {
              outcome: 'accepted',
              ...(done.o?.runIds[0] ? { run_id: done.o.runIds[0] } : {}),
              ...(done.p.match.mappingError
                ? { reason: `its run failed at the mapping: ${done.p.match.mappingError}` }
                : {}),
            }
      this.log.record({
        ...base,
        outcome: own.outcome,
        eventType: candidate.type,
        eventKey: candidate.dedupeKey,
        subscriptions: { [row.id]: own },
      })
    }
  }
}
