import type { Selectable } from 'kysely'
import type { User, Users } from '../access/users.ts'
import type { Sealer } from '../connections/crypto.ts'
import type { IntegrationRow } from '../connections/integrations.ts'
import { AppError } from '../errors.ts'
import { newId, randomToken } from '../ids.ts'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { PlatformDefinition } from '../platforms/types.ts'
import type { Db, Store } from '../store/database.ts'
import type { WebhooksTable } from '../store/schema.ts'
import type { StepContexts } from '../tools/step-context.ts'
import type { TriggerRoutes } from './routes.ts'

/** A failed removal is tried again after these waits, then every last one; health shows it meanwhile. */
const CLEANUP_BACKOFF_MS = [30_000, 300_000, 1_800_000, 3_600_000]
/** How long a claimed retry holds its webhook: an instance killed mid-attempt gives it up after this. */
const CLEANUP_CLAIM_MS = 120_000
const DESCRIPTION = 'Switchyard'

/** Activations and releases of one model's webhook take this lock, in every process. */
const lockKey = (integrationId: string, modelKey: string) => `webhook:${integrationId}:${modelKey}`

export type WebhookRow = Selectable<WebhooksTable>

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

  /**
   * The webhook this subscription needs on `modelKey`, created at the platform unless one is there to
   * share, and linked to `subscriptionId` under the same lock `release` takes: a release counting the
   * links at the same moment sees this one, so it never removes a webhook an activation just joined.
   */
  async ensure(
    user: User,
    platform: PlatformDefinition,
    integration: IntegrationRow,
    modelKey: string,
    subscriptionId: string,
  ): Promise<string> {
    return this.store.withLock(lockKey(integration.id, modelKey), async () => {
      const id =
        (await this.shareable(integration.id, modelKey)) ??
        (await this.revived(user, platform, integration, modelKey)) ??
        (await this.create(user, platform, integration, modelKey))
      await this.db
        .insertInto('subscription_webhooks')
        .values({ subscription_id: subscriptionId, webhook_id: id })
        .onConflict((oc) => oc.doNothing())
        .execute()
      return id
    })
  }

  private async shareable(integrationId: string, modelKey: string): Promise<string | undefined> {
    const existing = await this.db
      .selectFrom('webhooks')
      .select('id')
      .where('integration_id', '=', integrationId)
      .where('model_key', '=', modelKey)
      .where('managed', '=', true)
      .where('status', '=', 'active')
      .executeTakeFirst()
    return existing?.id
  }

  /**
   * A webhook whose removal failed is most likely still at the platform: asked live, it is taken back
   * rather than made twice (issue 22 saw deactivate-then-activate leave a `remove_failed` one beside a
   * new one). One the platform no longer has is forgotten; one it cannot answer for is left to its
   * retries and a new one is made.
   */
  private async revived(
    user: User,
    platform: PlatformDefinition,
    integration: IntegrationRow,
    modelKey: string,
  ): Promise<string | undefined> {
    const stale = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('integration_id', '=', integration.id)
      .where('model_key', '=', modelKey)
      .where('managed', '=', true)
      .where('status', '=', 'remove_failed')
      .orderBy('created_at', 'desc')
      .executeTakeFirst()
    if (!stale?.remote_id || !platform.webhooks?.exists) return undefined
    let present: boolean
    try {
      const { ctx } = await this.contexts.open(user, platform, integration.id, `trigger:${integration.id}`)
      present = await platform.webhooks.exists(ctx, stale.remote_id)
    } catch {
      return undefined
    }
    if (!present) {
      await this.forget(stale.id, stale.token)
      return undefined
    }
    const taken = await this.db
      .updateTable('webhooks')
      .set({
        status: 'active',
        last_error: null,
        cleanup_attempts: 0,
        cleanup_at: null,
        updated_at: new Date(),
      })
      .where('id', '=', stale.id)
      .where('status', '=', 'remove_failed')
      .executeTakeFirst()
    if (Number(taken.numUpdatedRows) === 0) return undefined
    await this.routes.changed()
    return stale.id
  }

  /**
   * After an integration is reconnected with a new credential: each of its active webhooks the
   * platform no longer has under it is made again at the same address (Trello's webhooks belong to
   * the token that made them and go with it; Zendesk's belong to the account and stay). Its row keeps
   * its id and address, so deliveries stay deduplicated with those before; its set-up error clears.
   * Answers how many were made again; one that cannot be keeps the error in its health.
   */
  async remakeUnder(user: User, platform: PlatformDefinition, integration: IntegrationRow): Promise<number> {
    const facts = platform.webhooks
    if (!facts?.managed || !facts.exists || !facts.subscribe) return 0
    const hooks = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('integration_id', '=', integration.id)
      .where('managed', '=', true)
      .where('status', '=', 'active')
      .execute()
    let remade = 0
    for (const hook of hooks) {
      await this.store.withLock(lockKey(integration.id, hook.model_key), async () => {
        try {
          const { ctx } = await this.contexts.open(
            user,
            platform,
            integration.id,
            `trigger:${integration.id}`,
          )
          if (hook.remote_id && (await facts.exists!(ctx, hook.remote_id))) {
            if (hook.last_error) await this.setError(hook.id, null)
            return
          }
          const made = await facts.subscribe!(ctx, {
            modelKey: hook.model_key,
            callbackUrl: this.addressOf(hook.token),
            description: DESCRIPTION,
          })
          await this.db
            .updateTable('webhooks')
            .set({
              remote_id: made.remoteId,
              ...(made.secret ? { secret: this.sealer.seal(made.secret) } : {}),
              last_error: null,
              updated_at: new Date(),
            })
            .where('id', '=', hook.id)
            .execute()
          remade++
        } catch (err) {
          await this.setError(
            hook.id,
            `Setting up the webhook again after reconnecting failed: ${err instanceof Error ? err.message : String(err)}`,
          )
        }
      })
    }
    if (remade) await this.routes.changed()
    return remade
  }

  private async setError(id: string, error: string | null): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ last_error: error, updated_at: new Date() })
      .where('id', '=', id)
      .execute()
  }

  private async create(
    user: User,
    platform: PlatformDefinition,
    integration: IntegrationRow,
    modelKey: string,
  ): Promise<string> {
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
    let remoteId: string | undefined
    // A set-up of several calls (Zendesk: create, then read the secret) records the id as soon as the
    // webhook exists, so a later call that fails leaves a removal to retry, never an orphan.
    const recordRemoteId = async (made: string) => {
      remoteId = made
      await this.db
        .updateTable('webhooks')
        .set({ remote_id: made, updated_at: new Date() })
        .where('id', '=', id)
        .execute()
    }
    try {
      const { ctx } = await this.contexts.open(user, platform, integration.id, `trigger:${integration.id}`)
      const created = await facts.subscribe(ctx, {
        modelKey,
        callbackUrl: this.addressOf(token),
        description: DESCRIPTION,
        created: recordRemoteId,
      })
      remoteId = created.remoteId
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
      if (!remoteId) {
        await this.db.deleteFrom('webhooks').where('id', '=', id).execute()
        throw err
      }
      // Made at the platform but not set up: removed at once, else kept as a removal to retry,
      // never an orphan that keeps delivering to an address nobody answers (it answers 410 meanwhile).
      const row = await this.db
        .updateTable('webhooks')
        .set({
          remote_id: remoteId,
          status: 'removing',
          last_error: err instanceof Error ? err.message : String(err),
          updated_at: new Date(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
        .catch(() => undefined)
      if (row) await this.remove(row)
      else
        await this.unsubscribe({
          user_id: user.id,
          platform: platform.id,
          integration_id: integration.id,
          remote_id: remoteId,
        }).catch(() => undefined)
      throw err
    }
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

  async forSubscription(subscriptionId: string): Promise<WebhookRow[]> {
    return (await this.forSubscriptions([subscriptionId])).get(subscriptionId) ?? []
  }

  /** The webhooks of each of `subscriptionIds`, in one read (a page of subscriptions, not one read a row). */
  async forSubscriptions(subscriptionIds: string[]): Promise<Map<string, WebhookRow[]>> {
    const found = new Map<string, WebhookRow[]>(subscriptionIds.map((id) => [id, []]))
    if (!subscriptionIds.length) return found
    // The links by their key, then each webhook by its key. As a plain join, PostgreSQL on the
    // statistics fresh rows leave hashed the whole webhooks table on every subscription read, save
    // and activation (issue 22, §7); OFFSET 0 keeps the lateral read from being flattened into that.
    const rows = await this.db
      .selectFrom('subscription_webhooks as link')
      .innerJoinLateral(
        (eb) =>
          eb
            .selectFrom('webhooks')
            .selectAll('webhooks')
            .whereRef('webhooks.id', '=', 'link.webhook_id')
            .offset(0)
            .as('hook'),
        (join) => join.onTrue(),
      )
      .selectAll('hook')
      .select('link.subscription_id as linked_subscription_id')
      .where('link.subscription_id', 'in', subscriptionIds)
      .execute()
    for (const { linked_subscription_id, ...hook } of rows) found.get(linked_subscription_id)?.push(hook)
    return found
  }

  /**
   * Called when a subscription lets go of the webhook: when no other subscription is linked to it
   * (active, or activating right now: `ensure` links under the same lock) it is removed at the
   * platform. A failure is recorded on the row (health shows it with the remote id) and retried by
   * `retryCleanups`. `subscriptionId`, when given, is the subscription letting go: its link is dropped
   * at once if the webhook stays, else together with the webhook once it is gone.
   */
  async release(webhookId: string, subscriptionId?: string): Promise<void> {
    const hook = await this.db
      .selectFrom('webhooks')
      .select(['integration_id', 'model_key', 'managed'])
      .where('id', '=', webhookId)
      .executeTakeFirst()
    if (!hook) return
    const claimed = await this.store.withLock(lockKey(hook.integration_id, hook.model_key), async () => {
      let others = this.db
        .selectFrom('subscription_webhooks')
        .select('subscription_id')
        .where('webhook_id', '=', webhookId)
      if (subscriptionId) others = others.where('subscription_id', '!=', subscriptionId)
      const stays = (await others.executeTakeFirst()) !== undefined || !hook.managed
      const row = stays
        ? undefined
        : await this.db
            .updateTable('webhooks')
            .set({ status: 'removing', updated_at: new Date() })
            .where('id', '=', webhookId)
            .where('status', 'in', ['active', 'pending', 'remove_failed'])
            .returningAll()
            .executeTakeFirst()
      if (!row && subscriptionId)
        await this.db
          .deleteFrom('subscription_webhooks')
          .where('subscription_id', '=', subscriptionId)
          .where('webhook_id', '=', webhookId)
          .execute()
      return row
    })
    if (claimed) {
      await this.routes.changed()
      await this.remove(claimed)
    }
  }

  /**
   * Removals that failed before and are due again. Each is claimed by moving its next attempt ahead
   * in the same statement that finds it (`FOR UPDATE SKIP LOCKED`), so two instances never both send
   * the DELETE; an instance that dies mid-attempt leaves it due again after the claim's lease.
   */
  async retryCleanups(limit = 20): Promise<void> {
    const due = await this.db
      .updateTable('webhooks')
      .set({ cleanup_at: new Date(Date.now() + CLEANUP_CLAIM_MS) })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('webhooks')
          .select('id')
          .where('status', '=', 'remove_failed')
          .where('cleanup_at', '<=', new Date())
          .orderBy('cleanup_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll()
      .execute()
    for (const row of due) await this.remove(row)
  }

  /**
   * Every webhook a user holds, removed at its platform while their credentials still work, before
   * their removal revokes them (docs/security.md, "Removing a user"). Best effort: one that cannot be
   * removed is counted, and its address answers 410 once the user is gone, so the platform stops.
   */
  async removeAllOf(userId: string): Promise<{ removed: number; left: number }> {
    const rows = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('user_id', '=', userId)
      .where('managed', '=', true)
      .where('remote_id', 'is not', null)
      .execute()
    let removed = 0
    for (const row of rows) {
      try {
        await this.unsubscribe(row)
        removed++
      } catch {
        // Counted below; the address is retired with the user.
      }
    }
    return { removed, left: rows.length - removed }
  }

  /** Whether an address belonged to a webhook removed on purpose (answered 410, where an unknown one is 404). */
  async retired(token: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('retired_hooks')
      .select('token')
      .where('token', '=', token)
      .executeTakeFirst()
    return row !== undefined
  }

  /** Deletes a webhook row and retires its address. */
  async forget(id: string, token: string, db: Db = this.db): Promise<void> {
    await db
      .insertInto('retired_hooks')
      .values({ token })
      .onConflict((oc) => oc.doNothing())
      .execute()
    await db.deleteFrom('webhooks').where('id', '=', id).execute()
  }

  private async remove(row: {
    id: string
    token: string
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
      await this.forget(row.id, row.token)
      await this.routes.changed()
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
