import type { Runs } from '../agents/runs.ts'
import type { Users } from '../access/users.ts'
import type { Sealer } from '../connections/crypto.ts'
import type { Integrations } from '../connections/integrations.ts'
import { AppError } from '../errors.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { Db } from '../store/database.ts'
import type { StepContexts } from '../tools/step-context.ts'
import { acceptEvent, type Match } from './accept.ts'
import type { TriggerRegistry } from './catalog.ts'
import type { Delivery, EventCandidate } from './define.ts'
import { mapEvent, type Mapping } from './mapping.ts'
import type { RemoteWebhooks } from './remote-webhooks.ts'

/**
 * The webhook intake (docs/architecture.md, "The road of an event"): find the webhook by the token in
 * its address, verify the signature on the raw bytes (fail closed: no secret, no event, unless the
 * platform can confirm the event itself), split the delivery into events, match them against the
 * active subscriptions on that webhook, then persist, deduplicate and enqueue in one transaction.
 * Only then does the platform get its 2xx.
 */
export class Intake {
  constructor(
    private readonly db: Db,
    private readonly runtimes: Map<string, PlatformRuntime>,
    private readonly triggers: TriggerRegistry,
    private readonly integrations: Integrations,
    private readonly users: Users,
    private readonly contexts: StepContexts,
    private readonly runs: Runs,
    private readonly webhooks: RemoteWebhooks,
    private readonly sealer: Sealer,
  ) {}

  /** A platform's check of the address before it creates a webhook (Trello's HEAD). */
  async knows(token: string): Promise<boolean> {
    const hook = await this.hook(token)
    return hook !== undefined && (hook.status === 'pending' || hook.status === 'active')
  }

  async receive(token: string, rawBody: Buffer, headers: Record<string, string | undefined>): Promise<{ accepted: number; duplicates: number }> {
    const hook = await this.hook(token)
    if (!hook) throw new AppError('not_found', 'no webhook has this address')
    if (hook.status !== 'active' && hook.status !== 'pending') throw new AppError('gone', 'this webhook was removed; stop sending to it')
    const runtime = this.runtimes.get(hook.platform)
    const facts = runtime?.definition.webhooks
    if (!runtime || !facts) throw new AppError('gone', 'this platform no longer sends events here')
    const integration = await this.integrations.get(hook.user_id, hook.integration_id).catch(() => undefined)
    if (!integration) throw new AppError('gone', 'the integration of this webhook was removed')

    const delivery: Delivery = { rawBody, headers, callbackUrl: this.webhooks.addressOf(hook.token) }
    const appSecret = integration.connected_with === 'authorization' && runtime.mode !== 'not_configured' ? runtime.client.clientSecret : undefined
    const verdict = await facts.verify(delivery, { hookSecret: hook.secret ? this.sealer.open(hook.secret) : undefined, appSecret })
    if (verdict === 'invalid') throw new AppError('unauthenticated', 'the webhook signature does not match')
    const candidates = facts.parse(delivery)
    if (verdict === 'unverifiable') await this.confirm(hook.user_id, runtime, integration.id, candidates)

    const subscriptions = await this.db.selectFrom('subscriptions').innerJoin('subscription_webhooks', 'subscription_webhooks.subscription_id', 'subscriptions.id')
      .innerJoin('agent_versions', (j) => j.onRef('agent_versions.agent_id', '=', 'subscriptions.agent_id'))
      .innerJoin('agents', (j) => j.onRef('agents.id', '=', 'subscriptions.agent_id').onRef('agents.current_version', '=', 'agent_versions.version'))
      .select(['subscriptions.id', 'subscriptions.agent_id', 'subscriptions.trigger_id', 'subscriptions.config', 'subscriptions.mapping', 'subscriptions.start_on_own_changes', 'agent_versions.definition'])
      .where('subscription_webhooks.webhook_id', '=', hook.id).where('subscriptions.status', '=', 'active').execute()

    let accepted = 0
    let duplicates = 0
    for (const candidate of candidates) {
      const matches: Match[] = []
      for (const sub of subscriptions) {
        // No loops: a change the integration's own account made (a run acting through it) starts nothing, unless asked.
        if (!sub.start_on_own_changes && candidate.actorId !== undefined && candidate.actorId === integration.external_id) continue
        const trigger = this.triggers.get(sub.trigger_id)?.trigger
        const event = trigger?.match?.(candidate, sub.config as Record<string, unknown>)
        if (!event) continue
        const variables = (sub.definition as { inputs: Parameters<typeof mapEvent>[2] }).inputs
        const { inputs, errors } = await mapEvent(sub.mapping as Mapping, event, variables)
        matches.push({
          subscriptionId: sub.id, userId: hook.user_id, agentId: sub.agent_id, event, inputs,
          ...(errors.length ? { mappingError: `the trigger's mapping did not give the agent's inputs: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}` } : {}),
        })
      }
      if (matches.length === 0) continue
      const outcome = await this.db.transaction().execute((trx) => acceptEvent(trx, this.runs, `webhook:${hook.id}`, candidate, matches))
      if (outcome.duplicate) duplicates++
      else accepted++
    }
    if (accepted) this.runs.onReady()
    return { accepted, duplicates }
  }

  /** Without a secret, an event counts only once the platform itself confirms it happened. */
  private async confirm(userId: string, runtime: PlatformRuntime, integrationId: string, candidates: EventCandidate[]): Promise<void> {
    const facts = runtime.definition.webhooks!
    const user = await this.users.get(userId)
    if (!facts.confirm || !user) throw new AppError('unauthenticated', 'no secret is known to verify this webhook, and the platform cannot confirm its events')
    const { ctx } = await this.contexts.open(user, runtime.definition, integrationId, `trigger:${integrationId}`)
    for (const candidate of candidates) {
      if (!(await facts.confirm(ctx, candidate))) throw new AppError('unauthenticated', 'the platform does not confirm this event')
    }
  }

  private async hook(token: string) {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return undefined
    return this.db.selectFrom('webhooks').selectAll().where('token', '=', token).executeTakeFirst()
  }
}
