import { planAtLeast } from '../access/plans.ts'
import type { User } from '../access/users.ts'
import { usesOf } from '../agents/integration-uses.ts'
import type { IntegrationRow } from '../connections/integrations.ts'
import { AppError } from '../errors.ts'
import type { Db } from '../store/database.ts'
import type { TriggerRegistry } from './catalog.ts'
import type { RemoteWebhooks } from './remote-webhooks.ts'
import type { TriggerRoutes } from './routes.ts'
import type { Subscriptions } from './subscriptions.ts'

/** What stops when an integration goes: said in the confirmation before a person disconnects or deletes it. */
export interface IntegrationUsage {
  active_triggers: number
  /** Steps, and model agents' tools, bound to it. */
  agent_steps: number
  /** External agents that declare it in `external.integrations` (their run tokens act on it). */
  external_agents: number
  /** Triggers paused when this integration was disconnected: reconnecting offers to resume them. */
  paused_triggers: number
  /** "2 active triggers and 1 agent step use Ada Lovelace (ada)", or null when nothing does. */
  summary: string | null
}

export interface ResumeOutcome {
  resumed: string[]
  /** Those that could not be activated again, with the reason (they stay paused). */
  failed: Array<{ id: string; code: string; message: string }>
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`
/** "a", "a and b", "a, b and c". */
const listed = (parts: string[]) =>
  parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : (parts[0] ?? '')

/**
 * What happens to triggers when the things they depend on go (docs/triggers.md, "When an
 * integration, a plan or a user goes"): an integration disconnected or deleted, a plan lowered, a user
 * removed. Nothing is left firing that should not, and no webhook is left at a platform.
 */
export class TriggerLifecycle {
  constructor(
    private readonly db: Db,
    private readonly triggers: TriggerRegistry,
    private readonly subscriptions: Subscriptions,
    private readonly webhooks: RemoteWebhooks,
    private readonly routes: TriggerRoutes,
  ) {}

  async usage(userId: string, integration: IntegrationRow): Promise<IntegrationUsage> {
    const subs = await this.db
      .selectFrom('subscriptions')
      .select(['status', 'paused_reason'])
      .where('user_id', '=', userId)
      .where('integration_id', '=', integration.id)
      .execute()
    const active = subs.filter((s) => s.status === 'active').length
    const paused = subs.filter(
      (s) => s.status === 'paused' && s.paused_reason === 'integration_disconnected',
    ).length
    // From the index of what each agent's current version names (migration 0019), not from every
    // definition (issue 22, §7). A model agent's tool bound to it counts as a step.
    const uses = await usesOf(this.db, userId, integration)
    const steps = uses.step + uses.tool
    const parts = [
      ...(active ? [plural(active, 'active trigger')] : []),
      ...(steps ? [plural(steps, 'agent step')] : []),
      ...(uses.external ? [plural(uses.external, 'external agent')] : []),
    ]
    const verb = active + steps + uses.external === 1 ? 'uses' : 'use'
    return {
      active_triggers: active,
      agent_steps: steps,
      external_agents: uses.external,
      paused_triggers: paused,
      summary: parts.length ? `${listed(parts)} ${verb} ${integration.account_name}` : null,
    }
  }

  /** Triggers paused on each of a user's integrations by its disconnection, for listing integrations. */
  async pausedCounts(userId: string, integrationIds?: string[]): Promise<Map<string, number>> {
    // A page of integrations asks about its own rows only (issue 22, §7: a list costs one page).
    if (integrationIds && !integrationIds.length) return new Map()
    let query = this.db
      .selectFrom('subscriptions')
      .select((eb) => ['integration_id', eb.fn.countAll<string>().as('n')])
      .where('user_id', '=', userId)
    if (integrationIds) query = query.where('integration_id', 'in', integrationIds)
    const rows = await query
      .where('status', '=', 'paused')
      .where('paused_reason', '=', 'integration_disconnected')
      .groupBy('integration_id')
      .execute()
    return new Map(rows.map((r) => [r.integration_id, Number(r.n)]))
  }

  /**
   * Before an integration is disconnected or deleted: its active triggers are paused and their
   * webhooks removed while its credential still works (the revocation comes after). Zendesk's
   * webhooks belong to the account and would outlive a revoked token.
   */
  async integrationGoing(userId: string, integrationId: string): Promise<number> {
    const rows = await this.db
      .selectFrom('subscriptions')
      .select('id')
      .where('user_id', '=', userId)
      .where('integration_id', '=', integrationId)
      .where('status', '=', 'active')
      .execute()
    let paused = 0
    for (const row of rows)
      if (await this.subscriptions.pause(userId, row.id, 'integration_disconnected')) paused++
    return paused
  }

  /** After reconnecting the same account: activates again what its disconnection paused. */
  async resume(user: User, integrationId: string): Promise<ResumeOutcome> {
    const rows = await this.db
      .selectFrom('subscriptions')
      .select('id')
      .where('user_id', '=', user.id)
      .where('integration_id', '=', integrationId)
      .where('status', '=', 'paused')
      .where('paused_reason', '=', 'integration_disconnected')
      .orderBy('created_at')
      .execute()
    const outcome: ResumeOutcome = { resumed: [], failed: [] }
    for (const row of rows) {
      try {
        await this.subscriptions.activate(user, row.id)
        outcome.resumed.push(row.id)
      } catch (err) {
        outcome.failed.push({
          id: row.id,
          code: err instanceof AppError ? err.code : 'internal',
          message: err instanceof Error ? err.message : String(err),
        })
      }
    }
    return outcome
  }

  /** The triggers a lowered plan paused that the user's plan now includes again (after an upgrade). */
  async planResumable(user: User, agentId?: string): Promise<string[]> {
    let query = this.db
      .selectFrom('subscriptions')
      .select(['id', 'trigger_id'])
      .where('user_id', '=', user.id)
      .where('status', '=', 'paused')
      .where('paused_reason', '=', 'plan_required')
    if (agentId) query = query.where('agent_id', '=', agentId)
    const rows = await query.orderBy('created_at').execute()
    return rows
      .filter((r) => {
        const required = this.triggers.get(r.trigger_id)?.trigger.requiredPlan
        return !required || planAtLeast(user.plan, required)
      })
      .map((r) => r.id)
  }

  /**
   * After a plan upgrade: activates again what the lowered plan paused and the plan now includes.
   * Each is activated as a person would (its integration connected, its mapping complete), so one
   * that cannot be is left paused and said in `failed`; the others go on.
   */
  async resumePlan(user: User): Promise<ResumeOutcome> {
    const outcome: ResumeOutcome = { resumed: [], failed: [] }
    for (const id of await this.planResumable(user)) {
      try {
        await this.subscriptions.activate(user, id)
        outcome.resumed.push(id)
      } catch (err) {
        outcome.failed.push({
          id,
          code: err instanceof AppError ? err.code : 'internal',
          message: err instanceof Error ? err.message : String(err),
        })
      }
    }
    return outcome
  }

  /**
   * After a plan change: what the plan no longer allows is paused with `plan_required`, its webhooks
   * removed. The intake checks the plan too, for the moment between the change and this.
   */
  async planChanged(user: User): Promise<number> {
    const rows = await this.db
      .selectFrom('subscriptions')
      .select(['id', 'trigger_id'])
      .where('user_id', '=', user.id)
      .where('status', '=', 'active')
      .execute()
    let paused = 0
    for (const row of rows) {
      const required = this.triggers.get(row.trigger_id)?.trigger.requiredPlan
      if (required && !planAtLeast(user.plan, required))
        if (await this.subscriptions.pause(user.id, row.id, 'plan_required')) paused++
    }
    // The intake's routes carry the plan: every process reads it afresh.
    await this.routes.changed()
    return paused
  }

  /** Before a user is removed: every webhook they hold is removed at its platform while their credentials work. */
  async userGoing(userId: string): Promise<{ removed: number; left: number }> {
    const outcome = await this.webhooks.removeAllOf(userId)
    return outcome
  }

  /**
   * Inside the transaction that removes the user: their subscriptions, links and webhooks go with
   * them, and every address they had is retired (410, so platforms stop sending).
   */
  async userRemoved(trx: Db, userId: string): Promise<void> {
    await trx
      .insertInto('retired_hooks')
      .columns(['token'])
      .expression((eb) => eb.selectFrom('webhooks').select('token').where('user_id', '=', userId))
      .onConflict((oc) => oc.doNothing())
      .execute()
    await trx
      .deleteFrom('subscription_webhooks')
      .where((eb) =>
        eb.or([
          eb(
            'subscription_id',
            'in',
            eb.selectFrom('subscriptions').select('id').where('user_id', '=', userId),
          ),
          eb('webhook_id', 'in', eb.selectFrom('webhooks').select('id').where('user_id', '=', userId)),
        ]),
      )
      .execute()
    await trx.deleteFrom('webhooks').where('user_id', '=', userId).execute()
    await trx.deleteFrom('subscriptions').where('user_id', '=', userId).execute()
  }

  /** Every process forgets its routes once the user's removal has committed. */
  async changed(): Promise<void> {
    await this.routes.changed()
  }
}
