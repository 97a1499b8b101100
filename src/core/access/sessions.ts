import { randomToken, sha256 } from '../ids.ts'
import type { Db } from '../store/database.ts'
import type { User } from './users.ts'

export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000

/** Web sessions: the cookie holds a random id; the database holds only its hash. */
export class Sessions {
  constructor(private readonly db: Db) {}

  async create(userId: string): Promise<{ id: string; expiresAt: Date }> {
    const id = randomToken(32)
    const expiresAt = new Date(Date.now() + SESSION_TTL_MS)
    await this.db.insertInto('sessions').values({ id_hash: sha256(id), user_id: userId, expires_at: expiresAt }).execute()
    return { id, expiresAt }
  }

  async resolve(id: string): Promise<User | undefined> {
    return this.db.selectFrom('sessions').innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['users.id', 'users.email', 'users.name', 'users.plan', 'users.role'])
      .where('sessions.id_hash', '=', sha256(id)).where('sessions.expires_at', '>', new Date()).executeTakeFirst()
  }

  async destroy(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', sha256(id)).execute()
  }
}
