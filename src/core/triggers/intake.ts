import { planAtLeast } from '../access/plans.ts'
import type { Users } from '../access/users.ts'
import type { QueueCap } from '../agents/queue-cap.ts'
import type { Runs } from '../agents/runs.ts'
import type { Sealer } from '../connections/crypto.ts'
import { AppError } from '../errors.ts'
import { memoized } from '../memo.ts'
import { noMetrics, type Metrics } from '../metrics.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { Db } from '../store/database.ts'
import { GroupCommit } from '../store/group-commit.ts'
import type { StepContexts } from '../tools/step-context.ts'
import { acceptEvents, type Accepted, type Match } from './accept.ts'
import type { TriggerRegistry } from './catalog.ts'
import type { Delivery, EventCandidate } from './define.ts'
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
    const verdict = await facts.verify(delivery, { hookSecret: this.hookSecret(route), appSecret })
    if (verdict === 'invalid') throw new AppError('unauthenticated', 'the webhook signature does not match')
    const candidates = facts.parse(withoutNul(delivery))
    if (verdict === 'unverifiable') await this.confirm(hook.user_id, runtime, hook.integration_id, candidates)

    const items: Accepted[] = []
    for (const candidate of candidates) {
      const matches = await this.matches(route, candidate)
      if (matches.length) items.push({ source: `webhook:${hook.id}`, candidate, matches })
    }
    await this.holdBackPastCap(hook.user_id, items)
    const outcomes = await Promise.all(items.map((item) => this.commits.submit(item)))
    const accepted = outcomes.filter((o) => !o.duplicate).length
    for (let i = 0; i < candidates.length - items.length; i++)
      this.metrics.triggerEvent(hook.platform, 'unmatched')
    for (const o of outcomes) this.metrics.triggerEvent(hook.platform, o.duplicate ? 'duplicate' : 'accepted')
    if (accepted) this.runs.onReady()
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
  private async holdBackPastCap(userId: string, items: Accepted[]): Promise<void> {
    const starting = items.flatMap((item) => item.matches.filter((m) => !m.mappingError))
    if (!this.queueCap || starting.length === 0) return
    const user = await this.users.get(userId)
    const refused = user && (await this.queueCap.refusal(user, starting.length))
    if (refused) for (const match of starting) match.refused = refused
  }

  private async matches(route: Route, candidate: EventCandidate): Promise<Match[]> {
    const matches: Match[] = []
    for (const sub of route.subscriptions) {
      // No loops: a change the integration's own account made (a run acting through it) starts nothing, unless asked.
      if (
        !sub.start_on_own_changes &&
        candidate.actorId !== undefined &&
        candidate.actorId === route.integration?.external_id
      )
        continue
      const trigger = this.triggers.get(sub.trigger_id)?.trigger
      // The plan is checked as the event is accepted: a lowered plan stops its triggers at once, before
      // the change pauses them (docs/triggers.md, "When an integration, a plan or a user goes").
      if (trigger?.requiredPlan && !planAtLeast(route.plan, trigger.requiredPlan)) continue
      const event = trigger?.match?.(candidate, sub.config)
      if (!event) continue
      matches.push({
        subscriptionId: sub.id,
        userId: route.hook.user_id,
        agentId: sub.agent_id,
        event,
        ...(await runInputs(sub.mapping, event, sub.inputs)),
      })
    }
    return matches
  }

  private hookSecret(route: Route): string | undefined {
    const sealed = route.hook.secret
    return sealed ? memoized(this.hookSecrets, route, () => this.sealer.open(sealed)) : undefined
  }

  /** Without a secret, an event counts only once the platform itself confirms it happened. */
  private async confirm(
    userId: string,
    runtime: PlatformRuntime,
    integrationId: string,
    candidates: EventCandidate[],
  ): Promise<void> {
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
    for (const candidate of candidates) {
      if (!(await facts.confirm(ctx, candidate)))
        throw new AppError('unauthenticated', 'the platform does not confirm this event')
    }
  }

  private async retired(token: string): Promise<boolean> {
    return /^[A-Za-z0-9_-]{16,64}$/.test(token) && this.webhooks.retired(token)
  }

  private async route(token: string): Promise<Route | undefined> {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return undefined
    return this.routes.byToken(token)
  }
}
