import { randomToken, sha256 } from '../ids.ts'
import type { Db } from '../store/database.ts'
import type { User } from './users.ts'

export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000
/** Signed-in browsers a user may have at once; signing in once more ends the oldest session. */
export const MAX_SESSIONS_PER_USER = 20
/** How often a process purges every user's expired sessions, on the next sign-in. */
export const SESSION_PURGE_EVERY_MS = 60 * 60 * 1000

/**
 * Web sessions: the cookie holds a random id; the database holds only its hash. The table stays
 * bounded: expired sessions are purged on sign-in (at most every SESSION_PURGE_EVERY_MS), and a
 * user holds at most MAX_SESSIONS_PER_USER.
 */
export class Sessions {
  private lastPurge = Number.NEGATIVE_INFINITY

  constructor(private readonly db: Db) {}

  async create(userId: string): Promise<{ id: string; expiresAt: Date }> {
    await this.purgeExpiredIfDue()
    const id = randomToken(32)
    const expiresAt = new Date(Date.now() + SESSION_TTL_MS)
    await this.db
      .insertInto('sessions')
      .values({ id_hash: sha256(id), user_id: userId, expires_at: expiresAt })
      .execute()
    const keep = this.db
      .selectFrom('sessions')
      .select('id_hash')
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('expires_at', 'desc')
      .limit(MAX_SESSIONS_PER_USER)
    await this.db
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('id_hash', 'not in', keep)
      .execute()
    return { id, expiresAt }
  }

  async resolve(id: string): Promise<User | undefined> {
    return this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['users.id', 'users.email', 'users.name', 'users.plan', 'users.role'])
      .where('sessions.id_hash', '=', sha256(id))
      .where('sessions.expires_at', '>', new Date())
      .executeTakeFirst()
  }

  async destroy(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', sha256(id)).execute()
  }

  private async purgeExpiredIfDue(): Promise<void> {
    if (Date.now() - this.lastPurge < SESSION_PURGE_EVERY_MS) return
    this.lastPurge = Date.now()
    await this.db.deleteFrom('sessions').where('expires_at', '<=', new Date()).execute()
  }
}
