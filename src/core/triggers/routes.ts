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
export const ROUTE_TTL_MS = 2_000
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
    /**
     * Where routes are read again before they expire, with no delivery waiting (Store.ahead): a line
     * of their own, so that a delivery's write does not wait behind every webhook's reread.
     */
    private readonly ahead: Db = db,
  ) {
    this.cache = new SharedCache<Route>('trigger_routes', () => ALL, ROUTE_TTL_MS, { changes })
  }

  /** Every process forgets its routes: call after any change to subscriptions or webhooks. */
  async changed(): Promise<void> {
    await this.cache.changed(ALL)
  }

  /** Lookups under way, so that a burst of deliveries to one address reads it once (single flight). */
  private readonly loading = new Map<string, { generation: number; route: Promise<Route | undefined> }>()

  /** Addresses whose cached route was served since it was last read: re-read at half its life (readAhead). */
  private readonly servedSinceRead = new Set<string>()

  /**
   * The route of a webhook address. A cached route past half its time is read again in the
   * background while it is served: a webhook receiving an event a second found its route expired
   * every other time, and that delivery waited for six reads queued behind another user's burst on
   * the embedded store's one connection (docs/scaling.md, "One user's burst"). A route served is
   * still never older than ROUTE_TTL_MS.
   */
  async byToken(token: string): Promise<Route | undefined> {
    const cached = this.cache.get(token)
    if (cached) {
      this.servedSinceRead.add(token)
      if (this.cache.remainingMs(token) < ROUTE_TTL_MS / 2 && !this.loading.has(token))
        this.lookup(token, this.ahead).catch(() => {}) // a failed early read leaves the next delivery to read it
      return cached
    }
    return this.lookup(token)
  }

  /** Reads a route and caches it, joining a read of it already under way (single flight). */
  private async lookup(token: string, db: Db = this.db): Promise<Route | undefined> {
    const generation = this.cache.generation()
    // Join a lookup only if it began after the last change: one begun before may read the old rows.
    const pending = this.loading.get(token)
    if (pending && pending.generation === generation) return pending.route
    this.servedSinceRead.delete(token)
    const route = this.load(token, db).then((found) => {
      if (found) {
        this.cache.set(token, found, generation)
        if (this.cache.get(token) === found) this.readAhead(token)
      }
      return found
    })
    const entry = { generation, route }
    this.loading.set(token, entry)
    try {
      return await route
    } finally {
      if (this.loading.get(token) === entry) this.loading.delete(token)
    }
  }

  /**
   * Reads a route again at half its life if it was served since it was read, on a timer rather than
   * at the next delivery: a webhook sending once a second met its route past half its life with
   * anything from a second to a few milliseconds of it left, and when the read took longer (seven
   * statements, each waiting its turn behind another user's burst) the next delivery waited for it,
   * up to 0.9 s (issue 22, §9). Read at half its life, the route has a whole half left for its read.
   * A route nobody asked for since its read is left to expire.
   */
  private readAhead(token: string): void {
    const timer = setTimeout(() => {
      const served = this.servedSinceRead.delete(token)
      if (!served || this.loading.has(token) || !this.cache.get(token)) return
      this.lookup(token, this.ahead).catch(() => {}) // a failed read leaves the next delivery to read it
    }, ROUTE_TTL_MS / 2)
    timer.unref()
  }

  /**
   * One route, read in small statements that each go through a unique or primary-key index: the webhook
   * by its token, the subscriptions linked to it, their agents' current versions. Written as one join,
   * PostgreSQL planned it, on the statistics a store has right after many subscriptions were created,
   * as a scan of every active subscription probing each one's links and agent (issue 22, section 7);
   * statements on one table by key leave the planner nothing to get wrong, at any size.
   */
  private async load(token: string, db: Db): Promise<Route | undefined> {
    const hook = await db
      .selectFrom('webhooks')
      .select(['id', 'user_id', 'platform', 'integration_id', 'token', 'secret', 'status'])
      .where('token', '=', token)
      .executeTakeFirst()
    if (!hook) return undefined
    const integration = await db
      .selectFrom('integrations')
      .select(['external_id', 'connected_with'])
      .where('id', '=', hook.integration_id)
      .executeTakeFirst()
    const owner = await db
      .selectFrom('users')
      .select('plan')
      .where('id', '=', hook.user_id)
      .executeTakeFirst()
    const links = await db
      .selectFrom('subscription_webhooks')
      .select('subscription_id')
      .where('webhook_id', '=', hook.id)
      .execute()
    const subscriptions = links.length
      ? await db
          .selectFrom('subscriptions')
          .select(['id', 'agent_id', 'trigger_id', 'config', 'mapping', 'start_on_own_changes'])
          .where(
            'id',
            'in',
            links.map((l) => l.subscription_id),
          )
          .where('status', '=', 'active')
          .orderBy('id')
          .execute()
      : []
    const agentIds = [...new Set(subscriptions.map((s) => s.agent_id))]
    const agents = agentIds.length
      ? await db.selectFrom('agents').select(['id', 'current_version']).where('id', 'in', agentIds).execute()
      : []
    const versions = agents.length
      ? await db
          .selectFrom('agent_versions')
          .select(['agent_id', 'definition'])
          .where((eb) =>
            eb(
              eb.refTuple('agent_id', 'version'),
              'in',
              agents.map((a) => eb.tuple(a.id, a.current_version)),
            ),
          )
          .execute()
      : []
    const definitions = new Map(versions.map((v) => [v.agent_id, v.definition as AgentDefinition]))
    return {
      hook,
      integration: integration ?? null,
      plan: owner?.plan ?? 'free',
      // A subscription whose agent was deleted a moment ago has no current version: it starts nothing.
      subscriptions: subscriptions.flatMap((r) => {
        const definition = definitions.get(r.agent_id)
        if (!definition) return []
        return [
          {
            id: r.id,
            agent_id: r.agent_id,
            trigger_id: r.trigger_id,
            config: r.config as Record<string, unknown>,
            mapping: r.mapping as Mapping,
            start_on_own_changes: r.start_on_own_changes,
            inputs: definition.inputs,
          },
        ]
      }),
    }
  }
}
