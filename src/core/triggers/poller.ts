import { sql } from 'kysely'
import type { Users } from '../access/users.ts'
import type { Agents } from '../agents/agents.ts'
import type { Runs } from '../agents/runs.ts'
import type { Integrations } from '../connections/integrations.ts'
import type { Db } from '../store/database.ts'
import type { StepContexts } from '../tools/step-context.ts'
import { acceptEvents, type Match } from './accept.ts'
import type { TriggerRegistry } from './catalog.ts'
import { runInputs, type Mapping } from './mapping.ts'
import type { RemoteWebhooks } from './remote-webhooks.ts'
import type { SubscriptionRow, Subscriptions } from './subscriptions.ts'
import { OWN_CHANGE, type DeliveryLog, type SubscriptionOutcome } from './delivery-log.ts'

const TICK_MS = 1_000
/** A claimed poll holds its subscription this long: a process killed mid-poll gives it up after this. */
const POLL_LEASE_MS = 60_000
const CLAIM_BATCH = 10

/**
 * Runs the polled triggers (docs/architecture.md, "Polls"). Each due subscription is claimed by
 * moving its next poll time forward with `FOR UPDATE SKIP LOCKED`, so one process polls it at a
 * time; the events found, their runs and the new cursor are committed in one transaction, so a crash
 * between enqueue and cursor loses nothing and runs nothing twice. It also retries failed webhook
 * removals.
 */
export class Poller {
  /** Where each poll's outcome is kept for the subscription's events list (services.ts sets it). */
  log: DeliveryLog | null = null
  private timer: NodeJS.Timeout | null = null
  private ticking: Promise<void> | null = null
  private stopped = false

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
    this.stopped = false
    const loop = () => {
      if (this.stopped) return
      this.ticking = this.tick()
        .catch(this.onError)
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, TICK_MS)
        })
    }
    this.timer = setTimeout(loop, 0)
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.ticking
  }

  /** One round: every due subscription polled once, and due webhook removals tried. */
  async tick(): Promise<void> {
    const polled = this.triggers
      .list()
      .filter((t) => t.mode === 'polled')
      .map((t) => t.id)
    if (polled.length) {
      const due = await this.claim(polled)
      await Promise.all(due.map((row) => this.pollOne(row)))
    }
    await this.webhooks.retryCleanups()
  }

  private async claim(triggerIds: string[]): Promise<SubscriptionRow[]> {
    const { rows } = await sql<SubscriptionRow>`
      update subscriptions set next_poll_at = now() + ${POLL_LEASE_MS} * interval '1 millisecond'
      where id in (
        select id from subscriptions
        where status = 'active' and next_poll_at <= now() and trigger_id in (${sql.join(triggerIds)})
        order by next_poll_at limit ${CLAIM_BATCH}
        for update skip locked)
      returning *`.execute(this.db)
    return rows
  }

  private async pollOne(row: SubscriptionRow): Promise<void> {
    const registered = this.triggers.get(row.trigger_id)
    const user = await this.users.get(row.user_id)
    if (!registered?.trigger.poll || !user) return
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
            ...(await runInputs(row.mapping as Mapping, event, agent.inputs)),
          }
          return { candidate, match }
        }),
      )
      let started = 0
      let outcomes: Array<{ duplicate: boolean; runIds: string[] }> = []
      await this.db.transaction().execute(async (trx) => {
        outcomes = await acceptEvents(
          trx,
          prepared.map(({ candidate, match }) => ({ source: `poll:${row.id}`, candidate, matches: [match] })),
        )
        started = outcomes.reduce((n, o) => n + o.runIds.length, 0)
        // The cursor moves with the runs it started, and only while the subscription is still active.
        await trx
          .updateTable('subscriptions')
          .set({
            poll_cursor: JSON.stringify(result.cursor),
            next_poll_at: new Date(Date.now() + this.intervalMs),
            last_error: null,
            last_error_at: null,
          })
          .where('id', '=', row.id)
          .where('status', '=', 'active')
          .execute()
      })
      if (started) this.runs.onReady()
      this.recordPoll(row, result.events, prepared, outcomes)
    } catch (err) {
      this.log?.record({
        source: `poll:${row.id}`,
        userId: row.user_id,
        outcome: 'failed',
        reason: `the poll failed: ${err instanceof Error ? err.message : String(err)}`,
      })
      await this.subscriptions.recordError(row.id, err)
      await this.db
        .updateTable('subscriptions')
        .set({ next_poll_at: new Date(Date.now() + this.intervalMs) })
        .where('id', '=', row.id)
        .where('status', '=', 'active')
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
