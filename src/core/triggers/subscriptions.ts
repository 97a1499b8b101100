import { z } from 'zod'
import { planAtLeast } from '../access/plans.ts'
import type { User } from '../access/users.ts'
import type { Agents } from '../agents/agents.ts'
import type { RunView, Runs } from '../agents/runs.ts'
import type { Integrations, IntegrationRow } from '../connections/integrations.ts'
import { AppError, invalidInput, notFound, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { Db } from '../store/database.ts'
import type { SubscriptionStatus, SubscriptionsTable } from '../store/schema.ts'
import type { StepContexts } from '../tools/step-context.ts'
import { parseDeclaredOrThrow, parseOrThrow } from '../validation.ts'
import { sql, type Selectable } from 'kysely'
import { afterPosition, createdMicros, decodeCursor, PageQuery, pageOf, searchPatterns } from '../paging.ts'
import type { RegisteredTrigger, TriggerRegistry } from './catalog.ts'
import type { TriggerEvent } from './define.ts'
import {
  deliveryFacts,
  subscriptionFacts,
  type PausedReason,
  type SubscriptionState,
} from './health-facts.ts'
import { healthVerdict, type Health, type HealthFact } from './health-verdict.ts'
import { mapEvent, mappingProblems, unmappedRequired, type Mapping } from './mapping.ts'
import type { RemoteWebhooks, WebhookRow } from './remote-webhooks.ts'
import type { TriggerRoutes } from './routes.ts'
import type { TriggerEvents } from './trigger-events.ts'

export type SubscriptionRow = Selectable<SubscriptionsTable>

export interface SubscriptionView {
  id: string
  agent_id: string
  /** The agent's current name, so a list names it without a second request. */
  agent_name: string | null
  trigger_id: string
  trigger_title: string
  platform: string
  mode: 'instant' | 'polled'
  integration_id: string
  integration_name: string | null
  config: Record<string, unknown>
  mapping: Mapping
  status: SubscriptionStatus
  /** Why the service paused it (`integration_disconnected`, `plan_required`); null unless paused. */
  paused_reason: string | null
  /** The one verdict (healthy, warning, failing, paused) with its reasons, from what is stored. */
  health: Health
  start_on_own_changes: boolean
  /** Where the user points the platform, for platforms whose webhooks the user sets up. */
  webhook_address: string | null
  /** Whether the secret the platform showed has been given, for those platforms. */
  webhook_secret_set: boolean | null
  last_event_at: Date | null
  last_error: string | null
  last_error_at: Date | null
  created_at: Date
  updated_at: Date
}

const MappingSchema = z.record(
  z.string(),
  z.string({ error: 'give a template, for example {{ card.name }}' }),
  { error: 'give the mapping as an object of agent inputs and templates' },
)

const Create = z.object({
  trigger: z.string({ error: 'name the trigger, for example trello.new_card' }),
  integration: z.string({ error: 'give the id or account name of the integration to watch' }),
  config: z.record(z.string(), z.unknown(), { error: 'give the configuration as an object' }).default({}),
  mapping: MappingSchema.default({}),
  start_on_own_changes: z.boolean({ error: 'say true or false' }).default(false),
  webhook_secret: z.string().max(500).optional(),
})

const Update = z.object({
  integration: z.string().optional(),
  config: z.record(z.string(), z.unknown(), { error: 'give the configuration as an object' }).optional(),
  mapping: MappingSchema.optional(),
  start_on_own_changes: z.boolean({ error: 'say true or false' }).optional(),
  webhook_secret: z.string().max(500).nullable().optional(),
})

const Preview = z.object({
  mapping: MappingSchema.optional(),
  event: z.record(z.string(), z.unknown(), { error: 'give the event as an object' }).optional(),
})

const Test = z.object({ start_run: z.boolean({ error: 'say true or false' }).default(false) })

/**
 * A trigger attached to an agent (docs/agents.md, "Triggers tab"): its integration, configuration
 * and mapping, tested, activated and deactivated, with the health a person needs to answer "why
 * does my trigger not fire". Another user's subscription is indistinguishable from none.
 */
export class Subscriptions {
  constructor(
    private readonly db: Db,
    private readonly triggers: TriggerRegistry,
    private readonly agents: Agents,
    private readonly runs: Runs,
    private readonly integrations: Integrations,
    private readonly contexts: StepContexts,
    private readonly webhooks: RemoteWebhooks,
    private readonly routes: TriggerRoutes,
    private readonly events: TriggerEvents,
  ) {}

  /**
   * A polled subscription became due now (activated, or "Poll now"): the composition root tells every
   * instance's poller through the change feed, since an idle poller sleeps until its next known poll.
   */
  onPollDue: () => void = () => {}

  async create(user: User, agentId: string, raw: unknown): Promise<SubscriptionView> {
    const agent = await this.agents.get(user.id, agentId)
    const body = parseOrThrow(Create, raw)
    const registered = this.trigger(body.trigger, 'trigger')
    this.checkPlan(user, registered)
    const integration = await this.integration(user, registered, body.integration)
    const config = this.parseConfig(registered, body.config)
    const problems = mappingProblems(body.mapping, agent.inputs, registered.entry.eventSchema)
    if (problems.length) throw invalidInput(problems)
    const id = newId('sub')
    await this.db
      .insertInto('subscriptions')
      .values({
        id,
        user_id: user.id,
        agent_id: agentId,
        trigger_id: registered.trigger.id,
        integration_id: integration.id,
        config: JSON.stringify(config),
        mapping: JSON.stringify(body.mapping),
        status: 'inactive',
        start_on_own_changes: body.start_on_own_changes,
      })
      .execute()
    if (this.unmanaged(registered)) {
      const hookId = await this.webhooks.createUnmanaged(
        user,
        integration,
        id,
        body.webhook_secret?.trim() || null,
      )
      await this.db
        .insertInto('subscription_webhooks')
        .values({ subscription_id: id, webhook_id: hookId })
        .execute()
    }
    return this.get(user.id, id)
  }

  async update(user: User, id: string, raw: unknown): Promise<SubscriptionView> {
    const body = parseOrThrow(Update, raw)
    const row = await this.row(user.id, id)
    const registered = this.trigger(row.trigger_id, 'trigger')
    const agent = await this.agents.get(user.id, row.agent_id)
    const integration = body.integration
      ? await this.integration(user, registered, body.integration)
      : undefined
    const config = body.config ? this.parseConfig(registered, body.config) : undefined
    if (body.mapping) {
      const problems = mappingProblems(body.mapping, agent.inputs, registered.entry.eventSchema)
      // An active subscription keeps a mapping that gives every required input (as activation asks).
      if (row.status === 'active')
        problems.push(...unmappedRequired(body.mapping, agent.inputs, registered.entry.eventSchema))
      if (problems.length) throw invalidInput(problems)
    }
    // Set up again only when what the platform watches changes: the integration, or (for an instant
    // trigger) its models; a polled one starts over on a new configuration. Saving an unchanged
    // subscription touches nothing at the platform (issue 22 saw every save make the webhook again).
    const rewire =
      row.status === 'active' &&
      ((integration !== undefined && integration.id !== row.integration_id) ||
        (config !== undefined &&
          this.watchesOtherwise(registered, row.config as Record<string, unknown>, config)))
    if (rewire) await this.deactivate(user, id)
    await this.db
      .updateTable('subscriptions')
      .set({
        ...(integration ? { integration_id: integration.id } : {}),
        ...(config ? { config: JSON.stringify(config) } : {}),
        ...(body.mapping ? { mapping: JSON.stringify(body.mapping) } : {}),
        ...(body.start_on_own_changes !== undefined
          ? { start_on_own_changes: body.start_on_own_changes }
          : {}),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .execute()
    if (body.webhook_secret !== undefined && this.unmanaged(registered)) {
      for (const hook of await this.webhooks.forSubscription(id))
        await this.webhooks.setSecret(hook.id, body.webhook_secret?.trim() || null)
    }
    if (rewire) await this.activate(user, id)
    await this.routes.changed()
    return this.get(user.id, id)
  }

  async activate(user: User, id: string): Promise<SubscriptionView> {
    const row = await this.row(user.id, id)
    const registered = this.trigger(row.trigger_id, 'trigger')
    this.checkPlan(user, registered)
    const integration = await this.integrations.get(user.id, row.integration_id)
    if (integration.status !== 'active') {
      throw new AppError(
        'reconnect_required',
        `the integration ${integration.account_name} is ${integration.status === 'disconnected' ? 'disconnected' : 'in need of reconnection'}; reconnect it before activating the trigger`,
        { integrationId: integration.id },
      )
    }
    if (row.status === 'active') return this.get(user.id, id)
    const agent = await this.agents.get(user.id, row.agent_id)
    const unmapped = unmappedRequired(row.mapping as Mapping, agent.inputs, registered.entry.eventSchema)
    if (unmapped.length) throw invalidInput(unmapped)
    const config = row.config as Record<string, unknown>
    if (registered.trigger.mode === 'instant' && !this.unmanaged(registered)) {
      const models = registered.trigger.models?.(config) ?? []
      const linked: string[] = []
      try {
        for (const model of models)
          linked.push(await this.webhooks.ensure(user, registered.platform, integration, model, id))
      } catch (err) {
        // A half-done activation leaves nothing behind at the platform.
        for (const hookId of linked) await this.webhooks.release(hookId, id)
        await this.recordError(id, err)
        throw err
      }
    }
    await this.db
      .updateTable('subscriptions')
      .set({
        status: 'active',
        paused_reason: null,
        updated_at: new Date(),
        last_error: null,
        last_error_at: null,
        ...(registered.trigger.mode === 'polled' ? { next_poll_at: new Date(), poll_cursor: null } : {}),
      })
      .where('id', '=', id)
      .execute()
    if (registered.trigger.mode === 'polled') this.onPollDue()
    await this.routes.changed()
    return this.get(user.id, id)
  }

  /** Deactivation always commits here first; the platform's webhook is then removed if nothing else uses it, or the failure is shown. */
  async deactivate(user: User, id: string): Promise<SubscriptionView> {
    await this.stop(await this.row(user.id, id), 'inactive', null)
    return this.get(user.id, id)
  }

  /**
   * The service stops a subscription a person did not deactivate (its integration is being
   * disconnected, its plan no longer allows it): paused with the reason, its webhook removed while the
   * credential still works. Only active ones are paused: an inactive one stays as its owner left it.
   */
  async pause(userId: string, id: string, reason: PausedReason): Promise<boolean> {
    const row = await this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('status', '=', 'active')
      .executeTakeFirst()
    if (!row) return false
    await this.stop(row, 'paused', reason)
    return true
  }

  private async stop(row: SubscriptionRow, status: 'inactive' | 'paused', reason: PausedReason | null) {
    const id = row.id
    const registered = this.triggers.get(row.trigger_id)
    await this.db
      .updateTable('subscriptions')
      .set({ status, paused_reason: reason, next_poll_at: null, updated_at: new Date() })
      .where('id', '=', id)
      .execute()
    // The intake stops routing to it at once, in every process, before the platform's webhook is touched.
    await this.routes.changed()
    if (!registered || !this.unmanaged(registered)) {
      // The link goes with a successful removal (or at once when others still use the webhook), so a
      // removal that failed stays visible in this subscription's health until the retry succeeds.
      const links = await this.db
        .selectFrom('subscription_webhooks')
        .select('webhook_id')
        .where('subscription_id', '=', id)
        .execute()
      for (const link of links) await this.webhooks.release(link.webhook_id, id)
    }
  }

  /**
   * Deletes it. A webhook the user added at the platform by hand cannot be removed by Switchyard:
   * its address is retired (answered 410, so the platform stops) and the answer says what to remove
   * where (docs/triggers.md, "Addresses").
   */
  async delete(user: User, id: string): Promise<ManualCleanup[]> {
    await this.deactivate(user, id)
    const row = await this.row(user.id, id)
    const hooks = await this.webhooks.forSubscription(id)
    const title = this.triggers.get(row.trigger_id)?.platform.title ?? row.trigger_id.split('.')[0]
    await this.db.deleteFrom('subscriptions').where('id', '=', id).execute()
    const cleanup: ManualCleanup[] = []
    for (const hook of hooks.filter((h) => !h.managed)) {
      await this.webhooks.forget(hook.id, hook.token)
      const address = this.webhooks.addressOf(hook.token)
      cleanup.push({
        platform: row.trigger_id.split('.')[0],
        address,
        message: `Remove the webhook that sends to ${address} in ${title}: Switchyard cannot remove a webhook you added there. Its address now answers 410 Gone.`,
      })
    }
    await this.routes.changed()
    return cleanup
  }

  async deleteForAgent(user: User, agentId: string): Promise<ManualCleanup[]> {
    const rows = await this.db
      .selectFrom('subscriptions')
      .select('id')
      .where('user_id', '=', user.id)
      .where('agent_id', '=', agentId)
      .execute()
    const cleanup: ManualCleanup[] = []
    for (const row of rows) cleanup.push(...(await this.delete(user, row.id)))
    return cleanup
  }

  /**
   * One page of the user's subscriptions, oldest first (docs/api.md, "Lists are paged"), found by
   * words of the trigger's title or id, the agent's name or the integration's account name.
   */
  async page(
    userId: string,
    raw: unknown,
    agentId?: string,
  ): Promise<{ subscriptions: SubscriptionView[]; next_cursor: string | null }> {
    const { limit, cursor, q } = parseOrThrow(PageQuery, raw)
    // One agent's list is a list of its own: a cursor from another agent's or from the whole list is refused.
    const scope = agentId ? `subscriptions:${userId}:${agentId}` : `subscriptions:${userId}`
    let query = this.db.selectFrom('subscriptions').selectAll('subscriptions').where('user_id', '=', userId)
    if (agentId) query = query.where('agent_id', '=', agentId)
    if (cursor) query = query.where(afterPosition('subscriptions', decodeCursor(cursor, scope), 'asc'))
    const entries = this.triggers.list()
    for (const pattern of searchPatterns(q)) {
      const word = pattern.slice(1, -1).replace(/\\(.)/g, '$1')
      const titled = entries
        .filter((t) => `${t.title} ${t.platform}`.toLowerCase().includes(word))
        .map((t) => t.id)
      query = query.where((eb) =>
        eb.or([
          eb('subscriptions.trigger_id', 'ilike', pattern),
          ...(titled.length ? [eb('subscriptions.trigger_id', 'in', titled)] : []),
          eb.exists(
            eb
              .selectFrom('agents')
              .innerJoin('agent_versions', (j) =>
                j
                  .onRef('agent_versions.agent_id', '=', 'agents.id')
                  .onRef('agent_versions.version', '=', 'agents.current_version'),
              )
              .select('agents.id')
              .whereRef('agents.id', '=', 'subscriptions.agent_id')
              .where(sql`agent_versions.definition->>'name'`, 'ilike', pattern),
          ),
          eb.exists(
            eb
              .selectFrom('integrations')
              .select('integrations.id')
              .whereRef('integrations.id', '=', 'subscriptions.integration_id')
              .where('integrations.account_name', 'ilike', pattern),
          ),
        ]),
      )
    }
    const rows = await query
      .select(createdMicros('subscriptions').as('created_us'))
      .orderBy('subscriptions.created_at')
      .orderBy('subscriptions.id')
      .limit(limit + 1)
      .execute()
    const { page, next_cursor } = pageOf(rows, limit, scope)
    return {
      subscriptions: await this.views(
        userId,
        page.map(({ created_us: _, ...row }) => row),
      ),
      next_cursor,
    }
  }

  async get(userId: string, id: string): Promise<SubscriptionView> {
    return this.view(await this.row(userId, id))
  }

  /** The live preview: the given (or stored) mapping over the given event, or the trigger's sample. */
  async preview(
    user: User,
    id: string,
    raw: unknown,
  ): Promise<{ event: TriggerEvent; inputs: Record<string, unknown>; errors: FieldError[] }> {
    const body = parseOrThrow(Preview, raw ?? {})
    const row = await this.row(user.id, id)
    const registered = this.trigger(row.trigger_id, 'trigger')
    const agent = await this.agents.get(user.id, row.agent_id)
    const mapping = body.mapping ?? (row.mapping as Mapping)
    const event = body.event ?? registered.trigger.sample
    const saveProblems = mappingProblems(mapping, agent.inputs, registered.entry.eventSchema)
    if (saveProblems.length) return { event, inputs: {}, errors: saveProblems }
    return { event, ...(await mapEvent(mapping, event, agent.inputs, user.id)) }
  }

  /**
   * A test with a recent real event where the platform keeps them (else the sample), mapped as a run
   * would be; with `start_run`, one run marked as a test is started.
   */
  async test(
    user: User,
    id: string,
    raw: unknown,
  ): Promise<{
    source: 'recent' | 'sample'
    event: TriggerEvent
    inputs: Record<string, unknown>
    errors: FieldError[]
    run: RunView | null
  }> {
    const { start_run } = parseOrThrow(Test, raw ?? {})
    const row = await this.row(user.id, id)
    const registered = this.trigger(row.trigger_id, 'trigger')
    this.checkPlan(user, registered)
    const agent = await this.agents.get(user.id, row.agent_id)
    let event: TriggerEvent | undefined
    if (registered.trigger.recent) {
      const { ctx } = await this.contexts.open(
        user,
        registered.platform,
        row.integration_id,
        `trigger:${row.integration_id}`,
      )
      event = (await registered.trigger.recent(ctx, registered.trigger.config.parse(row.config)))[0]
    }
    const source = event ? ('recent' as const) : ('sample' as const)
    const chosen = event ?? registered.trigger.sample
    const { inputs, errors } = await mapEvent(row.mapping as Mapping, chosen, agent.inputs, user.id)
    let run: RunView | null = null
    if (start_run) {
      if (errors.length) throw invalidInput(errors)
      run = await this.runs.start(user, row.agent_id, inputs, 'trigger', {
        subscriptionId: row.id,
        event: chosen,
        test: true,
      })
    }
    return { source, event: chosen, inputs, errors, run }
  }

  /** What a person checks when a trigger does not fire: the integration, the platform's webhook (asked live), the last event and error. */
  async health(user: User, id: string) {
    const row = await this.row(user.id, id)
    const registered = this.trigger(row.trigger_id, 'trigger')
    const integration = await this.integrations.get(user.id, row.integration_id).catch(() => undefined)
    const hooks = await this.webhooks.forSubscription(id)
    const facts = registered.platform.webhooks
    let ctx: Awaited<ReturnType<StepContexts['open']>>['ctx'] | undefined
    let reachError: string | undefined
    if (hooks.some((h) => h.managed && h.remote_id) && facts?.exists && integration?.status === 'active') {
      try {
        ctx = (
          await this.contexts.open(
            user,
            registered.platform,
            row.integration_id,
            `trigger:${row.integration_id}`,
          )
        ).ctx
      } catch (err) {
        reachError = err instanceof Error ? err.message : String(err)
      }
    }
    const webhooks = await Promise.all(
      hooks.map(async (h) => {
        let present: boolean | null = null
        let error = h.last_error
        if (h.managed && h.remote_id && ctx && facts?.exists) {
          try {
            present = await facts.exists(ctx, h.remote_id)
          } catch (err) {
            error = err instanceof Error ? err.message : String(err)
          }
        }
        return {
          id: h.id,
          model_key: h.model_key,
          // Every webhook's address is shown, so a person can compare it with the platform's settings.
          address: this.webhooks.addressOf(h.token),
          remote_id: h.remote_id,
          managed: h.managed,
          status: h.status,
          present,
          last_error: error ?? reachError ?? null,
          ...(h.managed ? {} : { secret_set: h.secret !== null }),
        }
      }),
    )
    // Refused deliveries and skipped events, counted over the recent ones (issue 22, §5).
    const deliveries = await this.events.facts(
      row.id,
      hooks.map((h) => h.id),
    )
    const state = this.stateOf(row, registered, integration)
    const found = [
      ...subscriptionFacts({
        ...state,
        webhooks: webhooks.map((h) => ({ ...h, secret_set: h.secret_set })),
        last_error: this.staleError(row, integration) ? null : row.last_error,
      }),
      ...deliveryFacts({
        status: row.status,
        platformTitle: state.platformTitle,
        integrationName: integration?.account_name ?? 'its integration',
        start_on_own_changes: row.start_on_own_changes,
        unmanaged: registered.trigger.mode === 'instant' && this.unmanaged(registered),
        last_event_at: row.last_event_at,
        deliveries,
      }),
    ]
    // An error from before the integration was reconnected, or before events arrived again, no longer
    // says anything (issue 22 saw a set-up error stay red while events arrived): Check again clears it.
    if (row.last_error && this.staleError(row, integration)) await this.clearError(row.id)
    const { verdict, reasons } = healthVerdict(found)
    return {
      status: row.status,
      paused_reason: row.paused_reason,
      verdict,
      reasons,
      integration: integration
        ? {
            id: integration.id,
            name: integration.account_name,
            status: integration.status,
            connected: integration.status === 'active',
          }
        : { id: row.integration_id, name: null, status: 'deleted', connected: false },
      webhooks,
      polled: registered.trigger.mode === 'polled',
      next_poll_at: row.next_poll_at,
      last_event_at: row.last_event_at,
      last_error: this.staleError(row, integration) ? null : row.last_error,
      last_error_at: this.staleError(row, integration) ? null : row.last_error_at,
      deliveries,
    }
  }

  /** Any error recorded before the integration's last (re)connection or before the last event that arrived. */
  private staleError(row: SubscriptionRow, integration: IntegrationRow | undefined): boolean {
    if (!row.last_error_at) return false
    const at = new Date(row.last_error_at).getTime()
    const reconnected = integration?.status === 'active' && new Date(integration.updated_at).getTime() > at
    const eventSince = row.last_event_at !== null && new Date(row.last_event_at).getTime() > at
    return reconnected || eventSince
  }

  private async clearError(id: string): Promise<void> {
    await this.db
      .updateTable('subscriptions')
      .set({ last_error: null, last_error_at: null })
      .where('id', '=', id)
      .execute()
  }

  private stateOf(
    row: SubscriptionRow,
    registered: RegisteredTrigger | undefined,
    integration: IntegrationRow | undefined,
  ): Omit<SubscriptionState, 'webhooks' | 'last_error'> {
    return {
      status: row.status,
      paused_reason: row.paused_reason,
      platformTitle: registered?.platform.title ?? row.trigger_id.split('.')[0],
      mode: registered?.trigger.mode ?? 'instant',
      managed: registered ? !this.unmanaged(registered) : false,
      integration: integration ? { name: integration.account_name, status: integration.status } : null,
    }
  }

  /** Whether a new configuration needs the subscription set up again at the platform. */
  private watchesOtherwise(
    registered: RegisteredTrigger,
    before: Record<string, unknown>,
    after: Record<string, unknown>,
  ): boolean {
    if (registered.trigger.mode === 'polled') return JSON.stringify(before) !== JSON.stringify(after)
    if (this.unmanaged(registered)) return false
    const models = (config: Record<string, unknown>) =>
      [...(registered.trigger.models?.(config) ?? [])].sort().join('\u0000')
    return models(before) !== models(after)
  }

  /**
   * "Poll now": an active polled subscription becomes due at once, and the poller (which ticks every
   * second) takes it. A poll already in flight may overlap this one; each event is still stored and
   * started once, because polls deduplicate on the event's key like deliveries do.
   */
  async pollNow(user: User, id: string): Promise<SubscriptionView> {
    const row = await this.row(user.id, id)
    const registered = this.trigger(row.trigger_id, 'trigger')
    if (registered.trigger.mode !== 'polled')
      throw new AppError(
        'conflict',
        `${registered.trigger.title} is not polled: ${registered.platform.title} sends its events as they happen`,
      )
    if (row.status !== 'active')
      throw new AppError('conflict', 'activate the trigger first: an inactive trigger is not polled')
    await this.db
      .updateTable('subscriptions')
      .set({ next_poll_at: new Date() })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .execute()
    this.onPollDue()
    return this.get(user.id, id)
  }

  /** The subscription's recent deliveries and polls, newest first, each with what became of it. */
  async recentEvents(user: User, id: string, limit?: number) {
    const row = await this.row(user.id, id)
    const hooks = await this.webhooks.forSubscription(row.id)
    return this.events.ofSubscription(
      row.id,
      hooks.map((h) => h.id),
      limit,
    )
  }

  async recordError(id: string, err: unknown): Promise<void> {
    await this.db
      .updateTable('subscriptions')
      .set({ last_error: err instanceof Error ? err.message : String(err), last_error_at: new Date() })
      .where('id', '=', id)
      .execute()
  }

  private async row(userId: string, id: string): Promise<SubscriptionRow> {
    const row = await this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (!row) throw notFound('subscription')
    return row
  }

  private trigger(id: string, field: string): RegisteredTrigger {
    const registered = this.triggers.get(id)
    if (!registered)
      throw invalidInput([{ field, message: `there is no trigger ${id}; GET /v1/triggers lists them` }])
    return registered
  }

  /** Said for the platform as a whole, as the plan rule is: tool steps of the same platform stay open to every plan. */
  private checkPlan(user: User, registered: RegisteredTrigger): void {
    const required = registered.trigger.requiredPlan
    if (!required || planAtLeast(user.plan, required)) return
    const plan = (name: string) => name[0].toUpperCase() + name.slice(1)
    throw new AppError(
      'plan_required',
      `${registered.platform.title} triggers such as ${registered.trigger.title} need the ${plan(required)} plan of Switchyard; this account is on ${plan(user.plan)}. ${registered.platform.title} tool steps stay open to every plan.`,
      { requiredPlan: required },
    )
  }

  private async integration(user: User, registered: RegisteredTrigger, ref: string): Promise<IntegrationRow> {
    try {
      return await this.integrations.resolve(user.id, registered.platform.id, ref)
    } catch (err) {
      if (err instanceof AppError && (err.code === 'not_found' || err.code === 'invalid_input')) {
        throw invalidInput([
          { field: 'integration', message: err.extras.errors?.[0]?.message ?? err.message },
        ])
      }
      throw err
    }
  }

  private parseConfig(registered: RegisteredTrigger, raw: unknown): Record<string, unknown> {
    return parseDeclaredOrThrow(registered.trigger.config, raw, 'config') as Record<string, unknown>
  }

  private unmanaged(registered: RegisteredTrigger): boolean {
    return registered.trigger.mode === 'instant' && registered.platform.webhooks?.managed === false
  }

  private async view(row: SubscriptionRow): Promise<SubscriptionView> {
    return (await this.views(row.user_id, [row]))[0]!
  }

  /**
   * The views of a page of subscriptions with one read of their integrations and one of their
   * webhooks, whatever the page's length (issue 22 saw one integration lookup per row).
   */
  private async views(userId: string, rows: SubscriptionRow[]): Promise<SubscriptionView[]> {
    const [integrations, hooksOf, agentNames] = await Promise.all([
      this.integrations.byIds(
        userId,
        rows.map((r) => r.integration_id),
      ),
      this.webhooks.forSubscriptions(rows.map((r) => r.id)),
      this.agentNames(
        userId,
        rows.map((r) => r.agent_id),
      ),
    ])
    return rows.map((row) => ({
      ...this.viewOf(row, integrations.get(row.integration_id), hooksOf.get(row.id) ?? []),
      agent_name: agentNames.get(row.agent_id) ?? null,
    }))
  }

  private async agentNames(userId: string, ids: string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(ids)]
    if (!wanted.length) return new Map()
    const rows = await this.db
      .selectFrom('agents')
      .innerJoin('agent_versions', (j) =>
        j
          .onRef('agent_versions.agent_id', '=', 'agents.id')
          .onRef('agent_versions.version', '=', 'agents.current_version'),
      )
      .select(['agents.id', sql<string>`agent_versions.definition->>'name'`.as('name')])
      .where('agents.user_id', '=', userId)
      .where('agents.id', 'in', wanted)
      .execute()
    return new Map(rows.map((r) => [r.id, r.name]))
  }

  private viewOf(
    row: SubscriptionRow,
    integration: IntegrationRow | undefined,
    hooks: WebhookRow[],
  ): Omit<SubscriptionView, 'agent_name'> {
    const registered = this.triggers.get(row.trigger_id)
    const unmanaged = registered && this.unmanaged(registered) ? hooks[0] : undefined
    const health = healthVerdict(this.storedFacts(row, registered, integration, hooks))
    return {
      id: row.id,
      agent_id: row.agent_id,
      trigger_id: row.trigger_id,
      trigger_title: registered?.trigger.title ?? row.trigger_id,
      platform: registered?.platform.id ?? row.trigger_id.split('.')[0],
      mode: registered?.trigger.mode ?? 'instant',
      integration_id: row.integration_id,
      integration_name: integration?.account_name ?? null,
      config: row.config as Record<string, unknown>,
      mapping: row.mapping as Mapping,
      status: row.status,
      paused_reason: row.paused_reason,
      health,
      start_on_own_changes: row.start_on_own_changes,
      webhook_address: unmanaged ? this.webhooks.addressOf(unmanaged.token) : null,
      webhook_secret_set: unmanaged ? unmanaged.secret !== null : null,
      last_event_at: row.last_event_at,
      last_error: this.staleError(row, integration) ? null : row.last_error,
      last_error_at: this.staleError(row, integration) ? null : row.last_error_at,
      created_at: row.created_at,
      updated_at: row.updated_at,
    }
  }

  /** The facts storage gives, without asking the platform (lists show these; a health check adds live ones). */
  private storedFacts(
    row: SubscriptionRow,
    registered: RegisteredTrigger | undefined,
    integration: IntegrationRow | undefined,
    hooks: Awaited<ReturnType<RemoteWebhooks['forSubscription']>>,
  ): HealthFact[] {
    return subscriptionFacts({
      ...this.stateOf(row, registered, integration),
      webhooks: hooks.map((h) => ({
        managed: h.managed,
        status: h.status,
        remote_id: h.remote_id,
        present: null,
        last_error: h.last_error,
        secret_set: h.managed ? undefined : h.secret !== null,
      })),
      last_error: this.staleError(row, integration) ? null : row.last_error,
    })
  }
}

/** A webhook a person must remove at the platform themselves, with where and why. */
export interface ManualCleanup {
  platform: string
  address: string
  message: string
}
