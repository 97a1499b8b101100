import type { AgentDefinition } from '../agents/definition.ts'
import type { ChangeFeed } from '../store/changes.ts'
import type { Db } from '../store/database.ts'
import { SharedCache } from '../store/shared-cache.ts'
import type { Plan, WebhookStatus } from '../store/schema.ts'
import type { Mapping } from './mapping.ts'

/** What the intake needs to route one delivery: the webhook, its integration, the active subscriptions on it. */
export interface Route {
  hook: {
    id: string
    user_id: string
    platform: string
    integration_id: string
    token: string
    secret: string | null
    status: WebhookStatus
  }
  integration: { external_id: string; connected_with: string } | null
  /** The owner's plan: a trigger the plan does not include starts nothing. */
  plan: Plan
  subscriptions: Array<{
    id: string
    agent_id: string
    trigger_id: string
    config: Record<string, unknown>
    mapping: Mapping
    start_on_own_changes: boolean
    /** The agent's input variables at its current version, to check mapped inputs against. */
    inputs: AgentDefinition['inputs']
  }>
}

/**
 * How long a route may be served from memory. Every change to a subscription or webhook is
 * announced (every process drops its routes at once); an agent's new input variables, which only
 * change how mapped inputs are checked, are picked up within this time.
 */
const ROUTE_TTL_MS = 2_000
const ALL = 'all'

/**
 * The intake's lookups, cached: a busy webhook is read from the database once per change rather
 * than once per delivery.
 */
export class TriggerRoutes {
  private readonly cache: SharedCache<Route>

  constructor(
    private readonly db: Db,
    changes: ChangeFeed,
  ) {
    this.cache = new SharedCache<Route>('trigger_routes', () => ALL, ROUTE_TTL_MS, { changes })
  }

  /** Every process forgets its routes: call after any change to subscriptions or webhooks. */
  async changed(): Promise<void> {
    await this.cache.changed(ALL)
  }

  async byToken(token: string): Promise<Route | undefined> {
    const cached = this.cache.get(token)
    if (cached) return cached
    const generation = this.cache.generation()
    const hook = await this.db
      .selectFrom('webhooks')
      .select(['id', 'user_id', 'platform', 'integration_id', 'token', 'secret', 'status'])
      .where('token', '=', token)
      .executeTakeFirst()
    if (!hook) return undefined
    const integration = await this.db
      .selectFrom('integrations')
      .select(['external_id', 'connected_with'])
      .where('id', '=', hook.integration_id)
      .executeTakeFirst()
    const owner = await this.db
      .selectFrom('users')
      .select('plan')
      .where('id', '=', hook.user_id)
      .executeTakeFirst()
    const rows = await this.db
      .selectFrom('subscriptions')
      .innerJoin('subscription_webhooks', 'subscription_webhooks.subscription_id', 'subscriptions.id')
      .innerJoin('agents', 'agents.id', 'subscriptions.agent_id')
      .innerJoin('agent_versions', (j) =>
        j
          .onRef('agent_versions.agent_id', '=', 'agents.id')
          .onRef('agent_versions.version', '=', 'agents.current_version'),
      )
      .select([
        'subscriptions.id',
        'subscriptions.agent_id',
        'subscriptions.trigger_id',
        'subscriptions.config',
        'subscriptions.mapping',
        'subscriptions.start_on_own_changes',
        'agent_versions.definition',
      ])
      .where('subscription_webhooks.webhook_id', '=', hook.id)
      .where('subscriptions.status', '=', 'active')
      .execute()
    const route: Route = {
      hook,
      integration: integration ?? null,
      plan: owner?.plan ?? 'free',
      subscriptions: rows.map((r) => ({
        id: r.id,
        agent_id: r.agent_id,
        trigger_id: r.trigger_id,
        config: r.config as Record<string, unknown>,
        mapping: r.mapping as Mapping,
        start_on_own_changes: r.start_on_own_changes,
        inputs: (r.definition as AgentDefinition).inputs,
      })),
    }
    this.cache.set(token, route, generation)
    return route
  }
}
