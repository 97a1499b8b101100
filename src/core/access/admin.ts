import { z } from 'zod'
import type { Revoker } from '../connections/revoke.ts'
import type { Integrations } from '../connections/integrations.ts'
import { AppError, notFound } from '../errors.ts'
import type { Db } from '../store/database.ts'
import { retryingDeadlocks } from '../store/deadlocks.ts'
import type { Plan, Role } from '../store/schema.ts'
import { parseOrThrow } from '../validation.ts'
import { PlanField, RoleField, type CreatedKey, type User, type Users } from './users.ts'

export interface UserListing extends User {
  created_at: string
  /** Integrations the user holds, connected or not. */
  integrations: number
}

export interface CreatedUser {
  user: UserListing
  /** The user's first API key: returned once, never stored. */
  api_key: CreatedKey
}

export interface RemovedUser {
  id: string
  email: string
  /** Integrations whose credentials were erased. */
  integrations_disconnected: number
  /** Of those, how many the platform confirmed revoking (the rest have no revocation, or it failed). */
  revoked_at_platform: number
  /** Webhooks Switchyard made at platforms for the user's triggers, removed there before the revocation. */
  webhooks_removed_at_platforms: number
  /** Those a platform would not remove: their addresses answer 410 from now on, so the platform stops. */
  webhooks_left_at_platforms: number
}

/** What the user's triggers need done when the user changes plan or goes (core/triggers/lifecycle.ts). */
export interface UserLifecycle {
  planChanged(user: User): Promise<number>
  userGoing(userId: string): Promise<{ removed: number; left: number }>
  userRemoved(trx: Db, userId: string): Promise<void>
  changed(): Promise<void>
}

const UserChange = z
  .object({ plan: PlanField.optional(), role: RoleField.optional() })
  .strict()
  .refine((c) => c.plan !== undefined || c.role !== undefined, {
    message: 'give a plan or a role to change',
    path: ['plan'],
  })

// Ids are `usr_` plus 16 base64url characters (core/ids.ts): anything else names no user, and is
// answered without a query (a NUL byte, for one, is refused by PostgreSQL).
const USER_ID = /^usr_[A-Za-z0-9_-]{1,64}$/

/**
 * What an admin does to other users: list, create, change plan or role, remove. The rule that keeps
 * the service manageable: the last admin can be neither demoted nor removed.
 */
export class UserAdmin {
  constructor(
    private readonly db: Db,
    private readonly users: Users,
    private readonly integrations: Integrations,
    private readonly revoker: Revoker,
    private readonly lifecycle?: UserLifecycle,
  ) {}

  async list(): Promise<UserListing[]> {
    const rows = await this.db
      .selectFrom('users')
      .leftJoin('integrations', 'integrations.user_id', 'users.id')
      .select((eb) => [
        'users.id',
        'users.email',
        'users.name',
        'users.plan',
        'users.role',
        'users.created_at',
        eb.fn.count<string>('integrations.id').as('integrations'),
      ])
      .groupBy('users.id')
      .orderBy('users.created_at')
      .orderBy('users.id')
      .execute()
    return rows.map(listing)
  }

  async get(id: string): Promise<UserListing> {
    if (!USER_ID.test(id)) throw notFound('user')
    const row = await this.db
      .selectFrom('users')
      .leftJoin('integrations', 'integrations.user_id', 'users.id')
      .select((eb) => [
        'users.id',
        'users.email',
        'users.name',
        'users.plan',
        'users.role',
        'users.created_at',
        eb.fn.count<string>('integrations.id').as('integrations'),
      ])
      .where('users.id', '=', id)
      .groupBy('users.id')
      .executeTakeFirst()
    if (!row) throw notFound('user')
    return listing(row)
  }

  /** A new user and their first API key, so the admin can hand it over. */
  async create(input: unknown): Promise<CreatedUser> {
    const user = await this.users.create(input)
    const key = await this.users.createApiKey(user.id, 'first key')
    return { user: await this.get(user.id), api_key: key }
  }

  async change(id: string, input: unknown): Promise<UserListing> {
    const { plan, role } = parseOrThrow(UserChange, input)
    if (!USER_ID.test(id)) throw notFound('user')
    await this.db.transaction().execute(async (trx) => {
      const target = await lockTarget(trx, id)
      if (target.role === 'admin' && role === 'member') assertAnotherAdmin(target, 'demote')
      const set: { plan?: Plan; role?: Role } = {}
      if (plan) set.plan = plan
      if (role) set.role = role
      await trx.updateTable('users').set(set).where('id', '=', id).execute()
    })
    await this.users.keysChanged(id)
    // A lower plan pauses the triggers it no longer allows (docs/triggers.md, "When an integration, a plan or a user goes").
    const changed = plan ? await this.users.get(id) : undefined
    if (changed && this.lifecycle) await this.lifecycle.planChanged(changed)
    return this.get(id)
  }

  /**
   * Removes a user and everything they hold: the webhooks their triggers made are removed at the
   * platforms, each active integration is revoked at its platform
   * where the platform allows it (best effort, as a disconnect does), then the user's row goes and
   * with it, in the same transaction, their integrations (credentials and all), API keys, web
   * sessions, pending connect flows, subscriptions and webhooks (their addresses retired), agents
   * and runs (so their run tokens die). Every process then drops its cached copies.
   */
  async remove(id: string): Promise<RemovedUser> {
    if (!USER_ID.test(id)) throw notFound('user')
    const user = await this.users.get(id)
    if (!user) throw notFound('user')
    // Checked here too so that refusing the last admin revokes nothing at the platforms.
    if (user.role === 'admin') assertAnotherAdmin(await lockTarget(this.db, id), 'remove')
    // The platforms' webhooks go first, while the credentials that made them still work.
    const hooks = (await this.lifecycle?.userGoing(id)) ?? { removed: 0, left: 0 }
    const held = await this.integrations.list(id)
    const revoked = (await Promise.all(held.map((integration) => this.revoker.revoke(integration)))).filter(
      Boolean,
    ).length
    const { integrationIds, keyIds } = await retryingDeadlocks(() =>
      this.db.transaction().execute(async (trx) => {
        const target = await lockTarget(trx, id)
        if (target.role === 'admin') assertAnotherAdmin(target, 'remove')
        // Erase the sealed credentials explicitly before the rows go, so no code path that reads
        // between the two statements (or a replica behind) can still find them.
        const erased = await trx
          .updateTable('integrations')
          .set({ credentials: null, status: 'disconnected', expires_at: null, updated_at: new Date() })
          .where('user_id', '=', id)
          .returning('id')
          .execute()
        const keys = await trx.deleteFrom('api_keys').where('user_id', '=', id).returning('id').execute()
        await trx.deleteFrom('sessions').where('user_id', '=', id).execute()
        await trx.deleteFrom('connect_sessions').where('user_id', '=', id).execute()
        // Subscriptions, their links and webhooks, explicitly and in this transaction (issue 22 saw a
        // foreign key on the links answer 500 here, after the tokens were revoked).
        await this.lifecycle?.userRemoved(trx, id)
        await trx.deleteFrom('integrations').where('user_id', '=', id).execute()
        await trx.deleteFrom('users').where('id', '=', id).execute()
        return { integrationIds: erased.map((r) => r.id), keyIds: keys.map((k) => k.id) }
      }),
    )
    await this.users.keysChanged(id, keyIds)
    for (const integrationId of integrationIds) await this.integrations.changed(integrationId)
    await this.lifecycle?.changed()
    return {
      id,
      email: user.email,
      integrations_disconnected: integrationIds.length,
      revoked_at_platform: revoked,
      webhooks_removed_at_platforms: hooks.removed,
      webhooks_left_at_platforms: hooks.left,
    }
  }
}

interface LockedTarget {
  role: Role
  /** Admins other than the target, at the time of the lock. */
  otherAdmins: number
}

/**
 * Locks every admin row (in id order, so two transactions never wait on each other in a cycle) and
 * then the target's: two admins demoting or removing each other at once are serialized, and the
 * second sees the first's change. The locks are "no key update": they do not hold back the checks
 * of rows that refer to these users (a run ending, a delivery stored), which would otherwise wait
 * on the lock while holding what a removal deletes next, a deadlock.
 */
async function lockTarget(trx: Db, id: string): Promise<LockedTarget> {
  const admins = await trx
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'admin')
    .orderBy('id')
    .forNoKeyUpdate()
    .execute()
  const target = await trx
    .selectFrom('users')
    .select('role')
    .where('id', '=', id)
    .forNoKeyUpdate()
    .executeTakeFirst()
  if (!target) throw notFound('user')
  return { role: target.role, otherAdmins: admins.filter((a) => a.id !== id).length }
}

function assertAnotherAdmin(target: LockedTarget, action: 'demote' | 'remove'): void {
  if (target.otherAdmins === 0)
    throw new AppError('conflict', `cannot ${action} the last admin: make another user an admin first`)
}

function listing(row: {
  id: string
  email: string
  name: string
  plan: Plan
  role: Role
  created_at: Date | string
  integrations: string | number
}): UserListing {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    plan: row.plan,
    role: row.role,
    created_at: new Date(row.created_at).toISOString(),
    integrations: Number(row.integrations),
  }
}
