import { planAtLeast } from '../access/plans.ts'
import type { User, Users } from '../access/users.ts'
import type { QueueCap } from '../agents/queue-cap.ts'
import type { Runs } from '../agents/runs.ts'
import type { Sealer } from '../connections/crypto.ts'
import { AppError } from '../errors.ts'
import { memoized } from '../memo.ts'
import { noMetrics, type Metrics } from '../metrics.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { Db } from '../store/database.ts'
import { GroupCommit } from '../store/group-commit.ts'
import { asOwner } from '../store/statement-owner.ts'
import type { StepContexts } from '../tools/step-context.ts'
import { acceptEvents, type Accepted, type Match } from './accept.ts'
import type { TriggerRegistry } from './catalog.ts'
import type { Delivery, EventCandidate, TriggerEvent } from './define.ts'
import { mappingReads } from './event-paths.ts'
import {
  OWN_CHANGE,
  type DeliveryLog,
  type DeliveryOutcome,
  type SubscriptionOutcome,
} from './delivery-log.ts'
import { runInputs } from './mapping.ts'
import type { RemoteWebhooks } from './remote-webhooks.ts'
import type { Route, TriggerRoutes } from './routes.ts'

const NUL_ESCAPE = Buffer.from('\\u0000')
/** `\u0000` in JSON text, unless its backslash is itself escaped (`\\u0000` is a backslash and "u0000"). */
const NUL_IN_JSON = /(?<!\\)((?:\\\\)*)\\u0000/g

/**
 * A delivery whose JSON carries the NUL character, with each one turned into U+FFFD. PostgreSQL
 * stores no NUL in text or JSON, and refusing the delivery would lose a real event once the platform
 * gives up retrying (docs/triggers.md). The signature was checked on the bytes as sent, before this.
 */
function withoutNul(delivery: Delivery): Delivery {
  if (!delivery.rawBody.includes(NUL_ESCAPE)) return delivery
  return {
    ...delivery,
    rawBody: Buffer.from(delivery.rawBody.toString('utf8').replace(NUL_IN_JSON, '$1\\ufffd')),
  }
}

/** The start of a `\uD800`–`\uDFFF` escape in JSON text (and of a few others), where a lone surrogate can come from. */
const SURROGATE_ESCAPES = [Buffer.from('\\ud'), Buffer.from('\\uD')]
/** A UTF-16 surrogate without its partner (the `u` flag is off on purpose: it matches code units). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** A value with each lone surrogate in its strings (keys too) turned into U+FFFD. */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\ufffd')
  if (Array.isArray(value)) return value.map(wellFormed)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), wellFormed(v)]))
}

/**
 * Events whose text holds a lone UTF-16 surrogate (`\ud800`, valid JSON but no character), with
 * each one turned into U+FFFD, as NUL is (withoutNul): PostgreSQL refuses such an escape in JSON, and
 * refusing the delivery would lose the event once the platform gives up retrying (issue 22, §6).
 * Only a delivery whose bytes hold such an escape is walked.
 */
function withoutLoneSurrogates(delivery: Delivery, candidates: EventCandidate[]): EventCandidate[] {
  if (!SURROGATE_ESCAPES.some((escape) => delivery.rawBody.includes(escape))) return candidates
  return candidates.map((c) => wellFormed(c) as EventCandidate)
}

/** One word for a delivery across the subscriptions of its webhook: the best that happened to it. */
function overall(per: Record<string, SubscriptionOutcome>): DeliveryOutcome {
  const seen = new Set(Object.values(per).map((o) => o.outcome))
  for (const outcome of ['accepted', 'duplicate', 'skipped'] as const) if (seen.has(outcome)) return outcome
  return 'unmatched'
}

/** Deliveries in flight at once from which the intake counts as busy (a burst, not a steady pace). */
const BUSY_DELIVERIES = 8
/**
 * How long the intake still counts as busy after such a moment. Deliveries that share a write are
 * answered together, so in a burst the count falls to nothing between writes for a moment.
 */
const BUSY_HOLD_MS = 50

/**
 * The webhook intake (docs/architecture.md, "The road of an event"): find the webhook by the token in
 * its address, verify the signature on the raw bytes (fail closed: no secret, no event, unless the
 * platform can confirm the event itself), split the delivery into events, match them against the
 * active subscriptions on that webhook, then persist, deduplicate and enqueue in one transaction.
 * Only then does the platform get its 2xx. Deliveries that arrive together share a transaction
 * (group commit), each answered once it has committed.
 */
export class Intake {
  private readonly commits: GroupCommit<Accepted, { duplicate: boolean; runIds: string[] }>
  /** The per-plan cap on waiting runs (set by the composition root). */
  queueCap: QueueCap | undefined

  constructor(
    db: Db,
    private readonly runtimes: Map<string, PlatformRuntime>,
    private readonly triggers: TriggerRegistry,
    private readonly routes: TriggerRoutes,
    private readonly users: Users,
    private readonly contexts: StepContexts,
    private readonly runs: Runs,
    private readonly webhooks: RemoteWebhooks,
    private readonly sealer: Sealer,
    private readonly log: DeliveryLog,
    private readonly metrics: Metrics = noMetrics,
  ) {
    this.commits = new GroupCommit((items) => acceptEvents(db, items))
  }

  /**
   * Each cached route's webhook secret, opened once: decrypting it for every delivery took about 4 % of
   * the service's CPU in a burst of Zendesk deliveries. A route lives for seconds (routes.ts), and
   * with it goes its opened secret.
   */
  private readonly hookSecrets = new WeakMap<Route, string>()

  /** Deliveries received and not yet answered. */
  private inFlight = 0
  /** When BUSY_DELIVERIES or more were last in flight at once. */
  private busyAt = 0

  /**
   * Whether a burst of deliveries is arriving: this process's run worker lets them go first
   * (worker.ts). A delivery now and then does not count, so at a steady pace runs start at once.
   */
  busy(): boolean {
    return this.inFlight >= BUSY_DELIVERIES || Date.now() - this.busyAt < BUSY_HOLD_MS
  }

  /** A platform's check of the address before it creates a webhook (Trello's HEAD). */
  async knows(token: string): Promise<boolean> {
    const route = await this.route(token)
    return route !== undefined && (route.hook.status === 'pending' || route.hook.status === 'active')
  }

  async receive(
    token: string,
    rawBody: Buffer,
    headers: Record<string, string | undefined>,
  ): Promise<{ accepted: number; duplicates: number }> {
    if (++this.inFlight >= BUSY_DELIVERIES) this.busyAt = Date.now()
    try {
      return await this.receiveOne(token, rawBody, headers)
    } finally {
      this.inFlight--
    }
  }

  private async receiveOne(
    token: string,
    rawBody: Buffer,
    headers: Record<string, string | undefined>,
  ): Promise<{ accepted: number; duplicates: number }> {
    const route = await this.route(token)
    // An address no webhook row has is 404, not 410 (docs/triggers.md): Trello deletes a webhook
    // that answers 410, and an instance started on the wrong or a restored database would then
    // delete webhooks at the platform that it cannot prove are orphans. A webhook this instance is
    // removing itself answers 410 below.
    if (!route) {
      // An address retired on purpose (its subscription, integration or user removed) is 410, so the
      // platform stops sending; one never known stays 404 for the reason above.
      if (await this.retired(token))
        throw new AppError('gone', 'this webhook was removed; stop sending to it')
      throw new AppError('not_found', 'no webhook has this address')
    }
    try {
      // What the delivery reads and writes on its own is its owner's (store/statement-owner.ts).
      return await asOwner(route.hook.user_id, () => this.routed(route, rawBody, headers))
    } catch (caught) {
      // Its address retired while it was on its way (its user, subscription or integration removed
      // between routing it and storing it, when its rows met their foreign keys): answered as the
      // address now is, 410, so the platform stops, not as Switchyard's error for it to retry.
      const err =
        !(caught instanceof AppError) && (await this.retired(token).catch(() => false))
          ? new AppError('gone', 'this webhook was removed; stop sending to it')
          : caught
      // Every answer but a 2xx is kept too, with its reason: a wrong secret shows in health and in
      // the events list rather than as silence (issue 22, §5).
      const refused = err instanceof AppError && err.status < 500 ? err : undefined
      this.log.record({
        source: `webhook:${route.hook.id}`,
        userId: route.hook.user_id,
        outcome: refused ? 'refused' : 'failed',
        reason: refused
          ? refused.message
          : 'not stored because of an error in Switchyard; the platform sends it again',
      })
      throw err
    }
  }

  private async routed(
    route: Route,
    rawBody: Buffer,
    headers: Record<string, string | undefined>,
  ): Promise<{ accepted: number; duplicates: number }> {
    const { hook, integration } = route
    if (hook.status !== 'active' && hook.status !== 'pending')
      throw new AppError('gone', 'this webhook was removed; stop sending to it')
    const runtime = this.runtimes.get(hook.platform)
    const facts = runtime?.definition.webhooks
    if (!runtime || !facts) throw new AppError('gone', 'this platform no longer sends events here')
    if (!integration) throw new AppError('gone', 'the integration of this webhook was removed')

    const delivery: Delivery = { rawBody, headers, callbackUrl: this.webhooks.addressOf(hook.token) }
    const appSecret =
      integration.connected_with === 'authorization' && runtime.mode !== 'not_configured'
        ? runtime.client.clientSecret
        : undefined
    const hookSecret = this.hookSecret(route)
    const verdict = await facts.verify(delivery, { hookSecret, appSecret })
    const title = runtime.definition.title
    if (verdict === 'invalid')
      throw new AppError(
        'unauthenticated',
        facts.managed
          ? `the webhook signature does not match: this delivery was not signed as ${title} signs this webhook's deliveries`
          : `the webhook signature does not match the secret saved for this trigger: paste the webhook's secret again, as ${title} shows it`,
      )
    if (verdict === 'unverifiable' && !facts.managed)
      throw new AppError(
        'unauthenticated',
        `no secret is saved for this webhook, so no delivery can be checked: paste the secret ${title} shows for the webhook`,
      )
    const parsed = withoutLoneSurrogates(delivery, facts.parse(withoutNul(delivery)))
    const candidates =
      verdict === 'unverifiable'
        ? await this.confirm(hook.user_id, runtime, hook.integration_id, parsed)
        : parsed

    const source = `webhook:${hook.id}`
    const items: Accepted[] = []
    const sorted = await Promise.all(candidates.map((candidate) => this.matches(route, candidate)))
    candidates.forEach((candidate, i) => {
      const { matches } = sorted[i]!
      if (matches.length) items.push({ source, candidate, matches })
    })
    await this.holdBackPastCap({ id: hook.user_id, plan: route.plan }, items)
    const outcomes = await Promise.all(items.map((item) => this.commits.submit(item, hook.user_id)))
    const accepted = outcomes.filter((o) => !o.duplicate).length
    for (let i = 0; i < candidates.length - items.length; i++)
      this.metrics.triggerEvent(hook.platform, 'unmatched')
    for (const o of outcomes) this.metrics.triggerEvent(hook.platform, o.duplicate ? 'duplicate' : 'accepted')
    // Only a run that waits in the queue wakes the run worker: one failed at its mapping, or refused
    // past the queue's cap, is stored as failed. Each wake is a claim, a statement on the embedded
    // store's one thread; a mapping that fails on every delivery woke it for every delivery for nothing
    // (docs/benchmarks.md, "Hostile templates").
    const queued = items.some(
      (item, i) => !outcomes[i]!.duplicate && item.matches.some((m) => !m.mappingError && !m.refused),
    )
    if (queued) this.runs.onReady(hook.user_id)

    const committed = new Map(items.map((item, i) => [item.candidate, { item, outcome: outcomes[i]! }]))
    candidates.forEach((candidate, i) => {
      const per = sorted[i]!.outcomes
      const done = committed.get(candidate)
      if (done) {
        const { runIds, duplicate } = done.outcome
        done.item.matches.forEach((m, k) => {
          per[m.subscriptionId] = duplicate
            ? { outcome: 'duplicate', reason: 'this event was received before; nothing started again' }
            : {
                outcome: 'accepted',
                ...(runIds.length === done.item.matches.length ? { run_id: runIds[k] } : {}),
                ...(m.mappingError ? { reason: `its run failed at the mapping: ${m.mappingError}` } : {}),
              }
        })
      }
      this.log.record({
        source,
        userId: hook.user_id,
        outcome: overall(per),
        eventType: candidate.type,
        eventKey: candidate.dedupeKey,
        subscriptions: per,
        ...(route.subscriptions.length === 0 ? { reason: 'no active trigger uses this webhook' } : {}),
      })
    })
    return { accepted, duplicates: outcomes.length - accepted }
  }

  /**
   * The owner's queue is full (agents/queue-cap.ts): the event is still accepted and answered 2xx,
   * and its runs are recorded as failed with the reason, so a person sees them and can rerun them.
   * Answering non-2xx instead would hand the event back to the platform, which keeps it only as long
   * as it retries: Trello tries 3 times, Zendesk's breaker stops a webhook whose answers mostly fail
   * (for all of its events, not only this owner's backlog), Vercel gives up after a day
   * (reference/platform-apis.md); after that the event is gone without a trace here.
   */
  private async holdBackPastCap(owner: Pick<User, 'id' | 'plan'>, items: Accepted[]): Promise<void> {
    const starting = items.flatMap((item) => item.matches.filter((m) => !m.mappingError))
    if (!this.queueCap || starting.length === 0) return
    // The plan comes with the route (read with it, as the trigger's plan check above uses it): no read
    // of the user per delivery, which on the embedded store took a turn of its one connection.
    const refused = await this.queueCap.refusal(owner, starting.length)
    if (refused) for (const match of starting) match.refused = refused
  }

  /** The subscriptions on the route this candidate starts, and what became of it for each of the others. */
  private async matches(
    route: Route,
    candidate: EventCandidate,
  ): Promise<{ matches: Match[]; outcomes: Record<string, SubscriptionOutcome> }> {
    const matches: Match[] = []
    const outcomes: Record<string, SubscriptionOutcome> = {}
    for (const sub of route.subscriptions) {
      const event = this.triggers.get(sub.trigger_id)?.trigger.match?.(candidate, sub.config)
      if (!event) {
        outcomes[sub.id] = {
          outcome: 'unmatched',
          reason: `this trigger does not fire for a ${candidate.type} event under its configuration`,
        }
        continue
      }
      // No loops: a change the integration's own account made (a run acting through it) starts nothing, unless asked.
      if (
        !sub.start_on_own_changes &&
        candidate.actorId !== undefined &&
        candidate.actorId === route.integration?.external_id
      ) {
        outcomes[sub.id] = { outcome: 'skipped', reason: OWN_CHANGE }
        continue
      }
      // The plan is checked as the event is accepted: a lowered plan stops its triggers at once, before
      // the change pauses them (docs/triggers.md, "When an integration, a plan or a user goes").
      const requiredPlan = this.triggers.get(sub.trigger_id)?.trigger.requiredPlan
      if (requiredPlan && !planAtLeast(route.plan, requiredPlan)) {
        outcomes[sub.id] = { outcome: 'skipped', reason: `this trigger needs the ${requiredPlan} plan` }
        continue
      }
      const { event: full, shortfall } = await this.enriched(route, sub, event)
      const mapped = await runInputs(sub.mapping, full, sub.inputs, route.hook.user_id)
      matches.push({
        subscriptionId: sub.id,
        userId: route.hook.user_id,
        agentId: sub.agent_id,
        event: full,
        ...mapped,
        ...(mapped.mappingError && shortfall
          ? { mappingError: `${mapped.mappingError} (${shortfall})` }
          : {}),
      })
    }
    return { matches, outcomes }
  }

  /**
   * The event with what the delivery left out filled in by its trigger (`enrich`, define.ts), when
   * this subscription's mapping reads it; else as delivered. A failure is said beside a mapping that
   * then falls short, never thrown: the event is still stored and its run recorded.
   */
  private async enriched(
    route: Route,
    sub: Route['subscriptions'][number],
    event: TriggerEvent,
  ): Promise<{ event: TriggerEvent; shortfall?: string }> {
    const registered = this.triggers.get(sub.trigger_id)
    const enrich = registered?.trigger.enrich
    if (!registered || !enrich || !mappingReads(sub.mapping, enrich.paths)) return { event }
    try {
      const user = await this.users.get(route.hook.user_id)
      if (!user) return { event }
      const integrationId = route.hook.integration_id
      const { ctx } = await this.contexts.open(
        user,
        registered.platform,
        integrationId,
        `trigger:${integrationId}`,
      )
      return { event: await enrich.run(ctx, structuredClone(event)) }
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err)
      return {
        event,
        shortfall: `${registered.platform.title} could not be asked for what its delivery leaves out: ${why}`,
      }
    }
  }

  private hookSecret(route: Route): string | undefined {
    const sealed = route.hook.secret
    return sealed ? memoized(this.hookSecrets, route, () => this.sealer.open(sealed)) : undefined
  }

  /**
   * Without a secret, an event counts only once the platform itself confirms it happened, and then as
   * the platform tells it: an unsigned body's content is never believed.
   */
  private async confirm(
    userId: string,
    runtime: PlatformRuntime,
    integrationId: string,
    candidates: EventCandidate[],
  ): Promise<EventCandidate[]> {
    const facts = runtime.definition.webhooks!
    const user = await this.users.get(userId)
    if (!facts.confirm || !user)
      throw new AppError(
        'unauthenticated',
        'no secret is known to verify this webhook, and the platform cannot confirm its events',
      )
    const { ctx } = await this.contexts.open(
      user,
      runtime.definition,
      integrationId,
      `trigger:${integrationId}`,
    )
    const confirmed: EventCandidate[] = []
    for (const candidate of candidates) {
      const real = await facts.confirm(ctx, candidate)
      if (!real) throw new AppError('unauthenticated', 'the platform does not confirm this event')
      confirmed.push(real)
    }
    return confirmed
  }

  private async retired(token: string): Promise<boolean> {
    return /^[A-Za-z0-9_-]{16,64}$/.test(token) && this.webhooks.retired(token)
  }

  private async route(token: string): Promise<Route | undefined> {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return undefined
    return this.routes.byToken(token)
  }
}
