import { z } from 'zod'
import { AppError } from '../errors.ts'
import { constantTimeEqual, newId, randomToken, sha256 } from '../ids.ts'
import type { Db } from '../store/database.ts'
import type { Plan, Role } from '../store/schema.ts'
import { SharedCache, type SharedCacheOptions } from '../store/shared-cache.ts'
import { parseOrThrow } from '../validation.ts'
import { PLANS } from './plans.ts'

export interface User {
  id: string
  email: string
  name: string
  plan: Plan
  role: Role
}

export const ROLES: readonly Role[] = ['admin', 'member']
const USER_COLUMNS = ['id', 'email', 'name', 'plan', 'role'] as const

export const PlanField = z.enum(PLANS as [Plan, ...Plan[]], { error: `must be one of ${PLANS.join(', ')}` })
export const RoleField = z.enum(ROLES as [Role, ...Role[]], { error: `must be one of ${ROLES.join(', ')}` })

export const NewUser = z
  .object({
    email: z
      .string({ error: 'give an email address' })
      .trim()
      .max(254, 'is too long')
      .email('must be an email address'),
    name: z.string().trim().min(1).max(200).optional(),
    plan: PlanField.default('free'),
    role: RoleField.default('member'),
  })
  .strict()

// API keys look like `sy_<prefix>_<secret>`. The prefix finds the row; only sha256(key) is stored.
// sha256 (not a slow hash) is right here because the key carries 192 bits of randomness.
const KEY_PATTERN = /^sy_([A-Za-z0-9_-]{12})_([A-Za-z0-9_-]{32})$/

export interface CreatedKey {
  id: string
  name: string
  prefix: string
  /** The full key: returned once, never stored. */
  key: string
}

/**
 * How long another instance may keep honouring a deleted key if the change feed's notice is lost
 * (this instance forgets at once, and the others as soon as the notice arrives).
 */
export const KEY_CACHE_TTL_MS = 5_000

export class Users {
  private readonly keyCache: SharedCache<{ keyId: string; user: User }>

  constructor(
    private readonly db: Db,
    cache: SharedCacheOptions = {},
  ) {
    this.keyCache = new SharedCache('api_key', (entry) => entry.keyId, KEY_CACHE_TTL_MS, cache)
  }

  async create(input: unknown): Promise<User> {
    const { email, name, plan, role } = parseOrThrow(NewUser, input)
    const user: User = {
      id: newId('usr'),
      email: email.toLowerCase(),
      name: name ?? email.split('@')[0],
      plan,
      role,
    }
    const inserted = await this.db
      .insertInto('users')
      .values(user)
      .onConflict((oc) => oc.column('email').doNothing())
      .executeTakeFirst()
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0)
      throw new AppError('conflict', `a user with email ${user.email} already exists`)
    return user
  }

  async get(id: string): Promise<User | undefined> {
    return this.db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst()
  }

  /**
   * Every process drops its cached copies of this user's keys (they carry the user's plan and role),
   * so a changed plan or role, or a removed user, takes effect on the next request everywhere.
   */
  async keysChanged(userId: string, keyIds?: string[]): Promise<void> {
    const ids =
      keyIds ??
      (await this.db.selectFrom('api_keys').select('id').where('user_id', '=', userId).execute()).map(
        (k) => k.id,
      )
    for (const id of ids) await this.keyCache.changed(id)
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  async createApiKey(userId: string, name = 'default'): Promise<CreatedKey> {
    const prefix = randomToken(9)
    const key = `sy_${prefix}_${randomToken(24)}`
    const id = newId('key')
    await this.db
      .insertInto('api_keys')
      .values({ id, user_id: userId, name, prefix, hash: sha256(key), last_used_at: null })
      .execute()
    return { id, name, prefix, key }
  }

  async listApiKeys(userId: string) {
    return this.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'prefix', 'created_at', 'last_used_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute()
  }

  async deleteApiKey(userId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('api_keys')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst()
    await this.keyCache.changed(id)
    return Number(result.numDeletedRows) > 0
  }

  /** Resolves an API key to its user and key id, or undefined; the comparison is constant-time. */
  async authenticateKey(key: string): Promise<{ user: User; keyId: string } | undefined> {
    const match = KEY_PATTERN.exec(key)
    if (!match) return undefined
    const hash = sha256(key)
    const cached = this.keyCache.get(hash)
    if (cached) return { user: cached.user, keyId: cached.keyId }
    const generation = this.keyCache.generation()
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .select([
        'api_keys.id as key_id',
        'api_keys.hash',
        'api_keys.last_used_at',
        'users.id',
        'users.email',
        'users.name',
        'users.plan',
        'users.role',
      ])
      .where('api_keys.prefix', '=', match[1])
      .executeTakeFirst()
    if (!row || !constantTimeEqual(row.hash, hash)) return undefined
    // Touch last_used_at at most once a minute: a write on every request would be a hot-path cost.
    if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > 60_000) {
      await this.db
        .updateTable('api_keys')
        .set({ last_used_at: new Date() })
        .where('id', '=', row.key_id)
        .execute()
    }
    const user: User = { id: row.id, email: row.email, name: row.name, plan: row.plan, role: row.role }
    this.keyCache.set(hash, { keyId: row.key_id, user }, generation)
    return { user, keyId: row.key_id }
  }
}
