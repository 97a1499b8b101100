import { PLAN_LIMITS } from '../access/plans.ts'
import type { User } from '../access/users.ts'
import { AppError, invalidInput, notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import { SharedCache, type SharedCacheOptions } from '../store/shared-cache.ts'
import type { Db } from '../store/database.ts'
import type { ConnectedWith, IntegrationStatus, IntegrationsTable } from '../store/schema.ts'
import type { Selectable } from 'kysely'
import { afterPosition, createdMicros, decodeCursor, PageQuery, pageOf, searchPatterns } from '../paging.ts'
import { parseOrThrow } from '../validation.ts'
import { z } from 'zod'

export type IntegrationRow = Selectable<IntegrationsTable>

/** What callers may see of an integration: never its credentials. */
export interface IntegrationView {
  id: string
  platform: string
  account_name: string
  external_id: string
  status: IntegrationStatus
  /** `authorization` (the platform's consent page) or `credentials` (pasted): a reconnect can offer the same way. */
  connected_with: ConnectedWith
  fields: Record<string, string>
  created_at: string
  updated_at: string
}

export function viewOf(row: IntegrationRow): IntegrationView {
  return {
    id: row.id,
    platform: row.platform,
    account_name: row.account_name,
    external_id: row.external_id,
    status: row.status,
    connected_with: row.connected_with,
    fields: row.fields,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  }
}

export interface SaveConnection {
  user: User
  platform: string
  externalId: string
  accountName: string
  fields: Record<string, string>
  connectedWith: ConnectedWith
  sealedCredentials: string
  expiresAt: Date | null
}

/**
 * How long another instance may use an integration row this one has changed if the change feed's
 * notice is lost (this instance forgets at once, and the others as soon as the notice arrives).
 */
/** A page of integrations, optionally of one platform only. */
const IntegrationPageQuery = PageQuery.extend({
  platform: z
    .string({ error: 'give one platform id, for example trello' })
    .max(50, 'at most 50 characters')
    .optional(),
})

export const INTEGRATION_CACHE_TTL_MS = 5_000

/** Every query is scoped by user id: another user's integration is indistinguishable from none. */
export class Integrations {
  // Tool runs look integrations up on every call; the row changes only on connect, refresh and
  // disconnect, each of which goes through this class and forgets it.
  private readonly resolved: SharedCache<IntegrationRow>

  constructor(
    private readonly db: Db,
    cache: SharedCacheOptions = {},
  ) {
    this.resolved = new SharedCache('integration', (row) => row.id, INTEGRATION_CACHE_TTL_MS, cache)
  }

  /** Drops this process's cached copy, for example after learning that storage holds newer credentials. */
  forget(id: string): void {
    this.resolved.forget(id)
  }

  /** Every process drops its cached copy (for example after the row was erased with its user). */
  async changed(id: string): Promise<void> {
    await this.resolved.changed(id)
  }

  async list(userId: string, platform?: string): Promise<IntegrationRow[]> {
    let query = this.db.selectFrom('integrations').selectAll().where('user_id', '=', userId)
    if (platform) query = query.where('platform', '=', platform)
    return query.orderBy('created_at').execute()
  }

  /**
   * One page of the user's integrations, oldest first, found by words of their account name or
   * platform (docs/api.md, "Lists are paged").
   */
  async page(
    userId: string,
    raw: unknown,
    platform?: string,
  ): Promise<{ integrations: IntegrationRow[]; next_cursor: string | null }> {
    const { limit, cursor, q, platform: asked } = parseOrThrow(IntegrationPageQuery, raw)
    const scope = `integrations:${userId}`
    let query = this.db.selectFrom('integrations').selectAll().where('user_id', '=', userId)
    // One platform's (the web app's pickers): a step on Trello chooses among Trello accounts only.
    platform ??= asked
    if (platform) query = query.where('platform', '=', platform)
    if (cursor) query = query.where(afterPosition('integrations', decodeCursor(cursor, scope), 'asc'))
    for (const pattern of searchPatterns(q))
      query = query.where((eb) =>
        eb.or([eb('account_name', 'ilike', pattern), eb('platform', 'ilike', pattern)]),
      )
    const rows = await query
      .select(createdMicros('integrations').as('created_us'))
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit + 1)
      .execute()
    const { page, next_cursor } = pageOf(rows, limit, scope)
    return { integrations: page.map(({ created_us: _, ...row }) => row), next_cursor }
  }

  /**
   * The account names of the user's integrations among `ids`, by id: what an agent, a run or a
   * trigger shows beside each step. Read by key, so it costs the same however many integrations the
   * user has (issue 22 saw GET /v1/agents/{id} read all 1,000).
   */
  async accountNames(userId: string, ids: Iterable<string>): Promise<Map<string, string>> {
    const wanted = [...new Set(ids)]
    if (!wanted.length) return new Map()
    // By primary key alone, the owner checked here (see lookup).
    const rows = await this.db
      .selectFrom('integrations')
      .select(['id', 'user_id', 'account_name'])
      .where('id', 'in', wanted)
      .execute()
    return new Map(rows.filter((r) => r.user_id === userId).map((r) => [r.id, r.account_name]))
  }

  /**
   * Up to `limit` of the user's accounts on a platform that a call may act as (all but disconnected
   * ones), by account name, and whether there are more: what an MCP listing, a tool call naming no
   * account and a model's tool choice offer. Read from the account-name index, so it costs the same
   * with 1,000 integrations as with one (issue 22, §7). `only` keeps those ids (a run token's scope).
   */
  async offered(
    userId: string,
    platform: string,
    limit: number,
    only?: ReadonlySet<string>,
  ): Promise<{ accounts: Array<Pick<IntegrationRow, 'id' | 'account_name' | 'status'>>; more: boolean }> {
    if (only && only.size === 0) return { accounts: [], more: false }
    let query = this.db
      .selectFrom('integrations')
      .select(['id', 'account_name', 'status'])
      .where('user_id', '=', userId)
      .where('platform', '=', platform)
      .where('status', '!=', 'disconnected')
    if (only) query = query.where('id', 'in', [...only])
    // In the account-name index's own order, so the read stops after a page (a tiebreak by id made
    // PostgreSQL sort all of the user's integrations first).
    const rows = await query
      .orderBy('account_name')
      .limit(limit + 1)
      .execute()
    return { accounts: rows.slice(0, limit), more: rows.length > limit }
  }

  /** The ids among `refs` (ids or account names, as an agent names them) of the user's integrations. */
  async idsNamed(userId: string, platforms: string[], refs: Iterable<string>): Promise<Set<string>> {
    const wanted = [...new Set(refs)]
    if (!wanted.length) return new Set()
    // By id first; what no id matched is read as a name, one name and platform a read. With the
    // names as a list, the planner read the user's whole range of a platform (issue 22, §7).
    const byId = (
      await this.db.selectFrom('integrations').select(['id', 'user_id']).where('id', 'in', wanted).execute()
    ).filter((r) => r.user_id === userId)
    const names = wanted.filter((ref) => !byId.some((r) => r.id === ref))
    const byName = await Promise.all(
      names.flatMap((name) =>
        platforms.map((platform) =>
          this.db
            .selectFrom('integrations')
            .select('id')
            .where('user_id', '=', userId)
            .where('platform', '=', platform)
            .where('account_name', '=', name)
            .execute(),
        ),
      ),
    )
    return new Set([...byId, ...byName.flat()].map((r) => r.id))
  }

  async get(userId: string, id: string): Promise<IntegrationRow> {
    const row = await this.db
      .selectFrom('integrations')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst()
    if (!row) throw notFound('integration')
    return row
  }

  /** The user's integrations among `ids`, by id: one read for a whole page of subscriptions. */
  async byIds(userId: string, ids: Iterable<string>): Promise<Map<string, IntegrationRow>> {
    const wanted = [...new Set(ids)]
    if (!wanted.length) return new Map()
    const rows = await this.db
      .selectFrom('integrations')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', 'in', wanted)
      .execute()
    return new Map(rows.map((r) => [r.id, r]))
  }

  /** Finds an integration by id or by account name, within one platform. */
  async resolve(userId: string, platform: string, ref: string): Promise<IntegrationRow> {
    const cacheKey = `${userId}\u0000${platform}\u0000${ref}`
    const cached = this.resolved.get(cacheKey)
    if (cached) return cached
    const generation = this.resolved.generation()
    const row = await this.lookup(userId, platform, ref)
    this.resolved.set(cacheKey, row, generation)
    return row
  }

  private async lookup(userId: string, platform: string, ref: string): Promise<IntegrationRow> {
    // By id first, then by name, each by its own index: one query on "id or name" read every one of
    // the user's integrations on the platform, for every step and every poll (issue 22).
    // The owner and platform are checked here, not in the query: given them, the planner may read
    // the user's whole (user_id, platform) index range instead of the one primary-key entry.
    const byId = await this.db.selectFrom('integrations').selectAll().where('id', '=', ref).executeTakeFirst()
    if (byId && byId.user_id === userId && byId.platform === platform) return byId
    const rows = await this.db
      .selectFrom('integrations')
      .selectAll()
      .where('user_id', '=', userId)
      .where('platform', '=', platform)
      .where('account_name', '=', ref)
      .execute()
    if (rows.length > 1) {
      throw invalidInput([
        {
          field: 'integration',
          message: `several ${platform} integrations are named "${ref}"; give one of their ids: ${describe(rows)}`,
        },
      ])
    }
    if (rows.length === 0) {
      // Name what there is, so a near miss ("acme" for "Ada Admin (acme)") can be corrected at once.
      // A few, by the (user_id, platform, account_name) index: never all of them (issue 22, §7).
      const yours = await this.db
        .selectFrom('integrations')
        .selectAll()
        .where('user_id', '=', userId)
        .where('platform', '=', platform)
        .orderBy('account_name')
        .limit(MAX_NAMED + 1)
        .execute()
      const hint =
        yours.length === 0
          ? 'you have none yet'
          : `yours are ${describe(yours.slice(0, MAX_NAMED))}${yours.length > MAX_NAMED ? ', …' : ''}`
      throw new AppError(
        'not_found',
        `no ${platform} integration has the id or account name "${ref}"; ${hint}`,
      )
    }
    return rows[0]
  }

  /** Connecting the same external account again updates its integration instead of adding one. */
  async save(connection: SaveConnection): Promise<IntegrationRow> {
    const saved = await this.insertOrUpdate(connection)
    await this.resolved.changed(saved.id)
    return saved
  }

  private async insertOrUpdate(connection: SaveConnection): Promise<IntegrationRow> {
    return this.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('integrations')
        .select('id')
        .where('user_id', '=', connection.user.id)
        .where('platform', '=', connection.platform)
        .where('external_id', '=', connection.externalId)
        .executeTakeFirst()
      const limit = PLAN_LIMITS[connection.user.plan].maxIntegrations
      // Counted only up to the plan's cap, and not at all on a plan without one: counting every
      // integration made each connection slower than the last (issue 22, §7).
      if (!existing && Number.isFinite(limit) && (await countUpTo(trx, connection.user.id, limit)) >= limit) {
        throw new AppError(
          'plan_required',
          `the ${connection.user.plan} plan allows ${limit} integrations; upgrade to connect more`,
          { requiredPlan: 'pro' },
        )
      }
      const now = new Date()
      return trx
        .insertInto('integrations')
        .values({
          id: newId('int'),
          user_id: connection.user.id,
          platform: connection.platform,
          external_id: connection.externalId,
          account_name: connection.accountName,
          status: 'active',
          fields: JSON.stringify(connection.fields),
          connected_with: connection.connectedWith,
          credentials: connection.sealedCredentials,
          expires_at: connection.expiresAt,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc.constraint('integrations_one_per_account').doUpdateSet({
            account_name: connection.accountName,
            status: 'active',
            fields: JSON.stringify(connection.fields),
            connected_with: connection.connectedWith,
            credentials: connection.sealedCredentials,
            expires_at: connection.expiresAt,
            updated_at: now,
          }),
        )
        .returningAll()
        .executeTakeFirstOrThrow()
    })
  }

  /** Reads the sealed credentials afresh (used under the refresh lock). */
  async credentialsOf(
    id: string,
  ): Promise<{ credentials: string | null; status: IntegrationStatus } | undefined> {
    return this.db
      .selectFrom('integrations')
      .select(['credentials', 'status'])
      .where('id', '=', id)
      .executeTakeFirst()
  }

  async storeCredentials(id: string, sealed: string, expiresAt: Date | null): Promise<void> {
    await this.db
      .updateTable('integrations')
      .set({ credentials: sealed, expires_at: expiresAt, updated_at: new Date() })
      .where('id', '=', id)
      .execute()
    await this.resolved.changed(id)
  }

  /**
   * Marks an integration as needing reconnection only if its credentials are still the ones that
   * failed: another process may have refreshed them in the meantime.
   */
  async markNeedsReconnection(id: string, failedCredentials: string): Promise<boolean> {
    const result = await this.db
      .updateTable('integrations')
      .set({ status: 'needs_reconnection', updated_at: new Date() })
      .where('id', '=', id)
      .where('credentials', '=', failedCredentials)
      .executeTakeFirst()
    await this.resolved.changed(id)
    return Number(result.numUpdatedRows) > 0
  }

  async disconnect(userId: string, id: string): Promise<IntegrationRow> {
    const row = await this.db
      .updateTable('integrations')
      .set({ status: 'disconnected', credentials: null, expires_at: null, updated_at: new Date() })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst()
    await this.resolved.changed(id)
    if (!row) throw notFound('integration')
    return row
  }

  async delete(userId: string, id: string): Promise<void> {
    const result = await this.db
      .deleteFrom('integrations')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst()
    await this.resolved.changed(id)
    if (Number(result.numDeletedRows) === 0) throw notFound('integration')
  }
}

/** How many integrations an error lists by name. */
const MAX_NAMED = 10

/** `int_1 ("Ada Admin (acme)"), int_2 (…)`: what a person needs to pick one. */
function describe(rows: IntegrationRow[]): string {
  return rows.map((r) => `${r.id} ("${r.account_name}")`).join(', ')
}

/** How many integrations the user holds, counted no further than `cap`. */
export async function countUpTo(db: Db, userId: string, cap: number): Promise<number> {
  const { n } = await db
    .selectFrom((eb) =>
      eb.selectFrom('integrations').select('id').where('user_id', '=', userId).limit(cap).as('held'),
    )
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(n)
}
