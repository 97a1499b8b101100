import { newId, randomToken, sha256 } from '../ids.ts'
import type { Db } from '../store/database.ts'
import type { SignInMethod } from '../store/schema.ts'
import type { User } from './users.ts'

export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000
/** Signed-in browsers a user may have at once; signing in once more ends the oldest session. */
export const MAX_SESSIONS_PER_USER = 20
/** How often a process purges every user's expired sessions, on the next sign-in. */
export const SESSION_PURGE_EVERY_MS = 60 * 60 * 1000
/** How stale a session's "last used" may get: writing it on every request would be a hot-path cost. */
const LAST_SEEN_EVERY_MS = 5 * 60 * 1000

/** A session as its person sees it in a list: never its secret. */
export interface SessionListing {
  id: string
  method: SignInMethod
  user_agent: string
  created_at: string
  last_seen_at: string
  expires_at: string
  /** The session this request came with. */
  current: boolean
}

/**
 * Web sessions: the cookie holds a random id; the database holds only its hash. The table stays
 * bounded: expired sessions are purged on sign-in (at most every SESSION_PURGE_EVERY_MS), and a
 * user holds at most MAX_SESSIONS_PER_USER.
 */
export class Sessions {
  private lastPurge = Number.NEGATIVE_INFINITY

  constructor(private readonly db: Db) {}

  /**
   * A new session with a new random secret (the cookie's value). Signing in always makes a new one,
   * never adopts the one a browser came with: a session id planted before sign-in is worth nothing.
   */
  async create(
    userId: string,
    how: { method?: SignInMethod; userAgent?: string } = {},
  ): Promise<{ id: string; publicId: string; expiresAt: Date }> {
    await this.purgeExpiredIfDue()
    const id = randomToken(32)
    const publicId = newId('ses')
    const expiresAt = new Date(Date.now() + SESSION_TTL_MS)
    await this.db
      .insertInto('sessions')
      .values({
        id_hash: sha256(id),
        id: publicId,
        user_id: userId,
        expires_at: expiresAt,
        method: how.method ?? 'api_key',
        user_agent: (how.userAgent ?? '').slice(0, 300),
      })
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
    return { id, publicId, expiresAt }
  }

  async resolve(id: string): Promise<User | undefined> {
    return (await this.resolveSession(id))?.user
  }

  /** The session's person and public id, or undefined when it has ended or expired. */
  async resolveSession(id: string): Promise<{ user: User; sessionId: string } | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'users.id',
        'users.email',
        'users.name',
        'users.plan',
        'users.role',
        'sessions.id as session_id',
        'sessions.last_seen_at',
      ])
      .where('sessions.id_hash', '=', sha256(id))
      .where('sessions.expires_at', '>', new Date())
      .executeTakeFirst()
    if (!row) return undefined
    if (Date.now() - new Date(row.last_seen_at).getTime() > LAST_SEEN_EVERY_MS)
      await this.db
        .updateTable('sessions')
        .set({ last_seen_at: new Date() })
        .where('id', '=', row.session_id)
        .execute()
    const { session_id, last_seen_at: _seen, ...user } = row
    return { user, sessionId: session_id }
  }

  async destroy(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', sha256(id)).execute()
  }

  /** The person's live sessions, newest first; `currentId` is marked. */
  async list(userId: string, currentId?: string | null): Promise<SessionListing[]> {
    const rows = await this.db
      .selectFrom('sessions')
      .select(['id', 'method', 'user_agent', 'created_at', 'last_seen_at', 'expires_at'])
      .where('user_id', '=', userId)
      .where('expires_at', '>', new Date())
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
    const iso = (d: Date | string) => new Date(d).toISOString()
    return rows.map((r) => ({
      id: r.id,
      method: r.method,
      user_agent: r.user_agent,
      created_at: iso(r.created_at),
      last_seen_at: iso(r.last_seen_at),
      expires_at: iso(r.expires_at),
      current: r.id === currentId,
    }))
  }

  /** Ends one of the person's sessions by its public id; false when they hold no such session. */
  async end(userId: string, publicId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('sessions')
      .where('user_id', '=', userId)
      .where('id', '=', publicId)
      .executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }

  /** Signs the person out everywhere, except the session `keepId` when given; answers how many ended. */
  async endAll(userId: string, keepId?: string | null): Promise<number> {
    let query = this.db.deleteFrom('sessions').where('user_id', '=', userId)
    if (keepId) query = query.where('id', '!=', keepId)
    const result = await query.executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  private async purgeExpiredIfDue(): Promise<void> {
    if (Date.now() - this.lastPurge < SESSION_PURGE_EVERY_MS) return
    this.lastPurge = Date.now()
    await this.db.deleteFrom('sessions').where('expires_at', '<=', new Date()).execute()
  }
}
