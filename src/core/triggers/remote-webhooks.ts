import type { User, Users } from '../access/users.ts'
import type { Sealer } from '../connections/crypto.ts'
import type { IntegrationRow } from '../connections/integrations.ts'
import { AppError } from '../errors.ts'
import { newId, randomToken } from '../ids.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { PlatformDefinition } from '../platforms/types.ts'
import type { Db, Store } from '../store/database.ts'
import type { StepContexts } from '../tools/step-context.ts'
import type { TriggerRoutes } from './routes.ts'

/** A failed removal is tried again after these waits, then every last one; health shows it meanwhile. */
const CLEANUP_BACKOFF_MS = [30_000, 300_000, 1_800_000, 3_600_000]
const DESCRIPTION = 'Switchyard'

export type WebhookRow = Awaited<ReturnType<RemoteWebhooks['forSubscription']>>[number]

/**
 * The platform-side webhooks (docs/triggers.md, "One webhook, many subscriptions"). A managed one
 * is created when the first active subscription needs it, shared by every subscription on the same
 * model of the same integration, and removed when the last one goes; a removal that fails is kept,
 * retried and shown, never forgotten. Its address ends in an unguessable token and is built from the
 * public URL, never from a request's Host.
 */
export class RemoteWebhooks {
  constructor(
    private readonly store: Store,
    private readonly contexts: StepContexts,
    private readonly sealer: Sealer,
    private readonly publicUrl: string,
    private readonly users: Users,
    private readonly runtimes: Map<string, PlatformRuntime>,
    private readonly routes: TriggerRoutes,
  ) {}

  private get db(): Db {
    return this.store.db
  }

  addressOf(token: string): string {
    return `${this.publicUrl}/hooks/${token}`
  }

  /** The webhook this subscription needs on `modelKey`, created at the platform unless an active one is there to share. */
  async ensure(
    user: User,
    platform: PlatformDefinition,
    integration: IntegrationRow,
    modelKey: string,
  ): Promise<string> {
    return this.store.withLock(`webhook:${integration.id}:${modelKey}`, async () => {
      const existing = await this.db
        .selectFrom('webhooks')
        .select('id')
        .where('integration_id', '=', integration.id)
        .where('model_key', '=', modelKey)
        .where('managed', '=', true)
        .where('status', '=', 'active')
        .executeTakeFirst()
      if (existing) return existing.id
      const facts = platform.webhooks
      if (!facts?.subscribe)
        throw new AppError('internal', `${platform.title} webhooks cannot be created by Switchyard`)
      const id = newId('whk')
      const token = randomToken(24)
      // The row exists first, so the platform's check of the address (Trello's HEAD) meets a 200.
      await this.db
        .insertInto('webhooks')
        .values({
          id,
          user_id: user.id,
          integration_id: integration.id,
          platform: platform.id,
          model_key: modelKey,
          managed: true,
          token,
          status: 'pending',
        })
        .execute()
      let created: Awaited<ReturnType<NonNullable<typeof facts.subscribe>>> | undefined
      try {
        const { ctx } = await this.contexts.open(user, platform, integration.id, `trigger:${integration.id}`)
        created = await facts.subscribe(ctx, {
          modelKey,
          callbackUrl: this.addressOf(token),
          description: DESCRIPTION,
        })
        await this.db
          .updateTable('webhooks')
          .set({
            remote_id: created.remoteId,
            secret: created.secret ? this.sealer.seal(created.secret) : null,
            status: 'active',
            updated_at: new Date(),
          })
          .where('id', '=', id)
          .execute()
        await this.routes.changed()
        return id
      } catch (err) {
        if (!created) {
          await this.db.deleteFrom('webhooks').where('id', '=', id).execute()
          throw err
        }
        // Made at the platform but not recorded: kept as a removal to retry at once, never an orphan
        // that keeps delivering to an address nobody answers (its address answers 410 meanwhile).
        await this.db
          .updateTable('webhooks')
          .set({
            remote_id: created.remoteId,
            status: 'remove_failed',
            last_error: err instanceof Error ? err.message : String(err),
            cleanup_at: new Date(),
            updated_at: new Date(),
          })
          .where('id', '=', id)
          .execute()
          .catch(() =>
            this.unsubscribe({
              user_id: user.id,
              platform: platform.id,
              integration_id: integration.id,
              remote_id: created!.remoteId,
            }).catch(() => undefined),
          )
        throw err
      }
    })
  }

  /** An address the user pastes into the platform's settings, with the secret the platform showed them. */
  async createUnmanaged(
    user: User,
    integration: IntegrationRow,
    subscriptionId: string,
    secret: string | null,
  ): Promise<string> {
    const id = newId('whk')
    await this.db
      .insertInto('webhooks')
      .values({
        id,
        user_id: user.id,
        integration_id: integration.id,
        platform: integration.platform,
        model_key: subscriptionId,
        managed: false,
        token: randomToken(24),
        status: 'active',
        secret: secret ? this.sealer.seal(secret) : null,
      })
      .execute()
    return id
  }

  async setSecret(webhookId: string, secret: string | null): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ secret: secret ? this.sealer.seal(secret) : null, updated_at: new Date() })
      .where('id', '=', webhookId)
      .execute()
    await this.routes.changed()
  }

  async forSubscription(subscriptionId: string) {
    return this.db
      .selectFrom('webhooks')
      .innerJoin('subscription_webhooks', 'subscription_webhooks.webhook_id', 'webhooks.id')
      .selectAll('webhooks')
      .where('subscription_webhooks.subscription_id', '=', subscriptionId)
      .execute()
  }

  /**
   * Called after a subscription let go of the webhook: when no active subscription uses it any more
   * it is removed at the platform. A failure is recorded on the row (health shows it with the remote
   * id) and retried by `retryCleanups`. `subscriptionId`, when given, is the subscription letting go:
   * its link is dropped at once if the webhook stays, else together with the webhook once it is gone.
   */
  async release(webhookId: string, subscriptionId?: string): Promise<void> {
    const unlink = async () => {
      if (subscriptionId)
        await this.db
          .deleteFrom('subscription_webhooks')
          .where('subscription_id', '=', subscriptionId)
          .where('webhook_id', '=', webhookId)
          .execute()
    }
    const users = await this.db
      .selectFrom('subscription_webhooks')
      .innerJoin('subscriptions', 'subscriptions.id', 'subscription_webhooks.subscription_id')
      .select('subscriptions.id')
      .where('subscription_webhooks.webhook_id', '=', webhookId)
      .where('subscriptions.status', '=', 'active')
      .executeTakeFirst()
    if (users) return unlink()
    const row = await this.db
      .updateTable('webhooks')
      .set({ status: 'removing', updated_at: new Date() })
      .where('id', '=', webhookId)
      .where('managed', '=', true)
      .where('status', 'in', ['active', 'pending', 'remove_failed'])
      .returningAll()
      .executeTakeFirst()
    if (row) {
      await this.routes.changed()
      await this.remove(row)
    } else await unlink()
  }

  /** Removals that failed before and are due again. */
  async retryCleanups(limit = 20): Promise<void> {
    const due = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('status', '=', 'remove_failed')
      .where('cleanup_at', '<=', new Date())
      .limit(limit)
      .execute()
    for (const row of due) await this.remove(row)
  }

  private async remove(row: {
    id: string
    user_id: string
    platform: string
    integration_id: string
    remote_id: string | null
    cleanup_attempts: number
  }): Promise<void> {
    try {
      // A deleted integration's token was revoked, and a platform deletes a revoked token's webhooks
      // with it (sources: Trello actions and webhooks): there is nothing left to remove.
      if (row.remote_id && (await this.integrationExists(row.integration_id))) await this.unsubscribe(row)
      await this.db.deleteFrom('subscription_webhooks').where('webhook_id', '=', row.id).execute()
      await this.db.deleteFrom('webhooks').where('id', '=', row.id).execute()
    } catch (err) {
      const wait = CLEANUP_BACKOFF_MS[Math.min(row.cleanup_attempts, CLEANUP_BACKOFF_MS.length - 1)]
      await this.db
        .updateTable('webhooks')
        .set({
          status: 'remove_failed',
          last_error: err instanceof Error ? err.message : String(err),
          cleanup_attempts: row.cleanup_attempts + 1,
          cleanup_at: new Date(Date.now() + wait),
          updated_at: new Date(),
        })
        .where('id', '=', row.id)
        .execute()
    }
  }

  private async integrationExists(id: string): Promise<boolean> {
    return (
      (await this.db.selectFrom('integrations').select('id').where('id', '=', id).executeTakeFirst()) !==
      undefined
    )
  }

  private async unsubscribe(row: {
    user_id: string
    platform: string
    integration_id: string
    remote_id: string | null
  }): Promise<void> {
    const user = await this.users.get(row.user_id)
    const platform = this.runtimes.get(row.platform)?.definition
    if (!user || !platform?.webhooks?.unsubscribe) return
    const { ctx } = await this.contexts.open(
      user,
      platform,
      row.integration_id,
      `trigger:${row.integration_id}`,
    )
    await platform.webhooks.unsubscribe(ctx, row.remote_id!)
  }
}
