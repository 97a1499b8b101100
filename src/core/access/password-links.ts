import { z } from 'zod'
import { AppError, notFound } from '../errors.ts'
import { randomToken, sha256 } from '../ids.ts'
import type { Db } from '../store/database.ts'
import { parseOrThrow } from '../validation.ts'
import type { LinkPurpose, Mailer } from './mailer.ts'
import { assertStrongPassword, hashPassword, MAX_PASSWORD_LENGTH } from './passwords.ts'
import type { User } from './users.ts'

export type { LinkPurpose }

/** How long a link works: an invitation waits for a person to find it; a reset is asked for now. */
export const LINK_TTL_MS: Record<LinkPurpose, number> = {
  invitation: 7 * 24 * 60 * 60 * 1000,
  reset: 24 * 60 * 60 * 1000,
}

export interface IssuedLink {
  purpose: LinkPurpose
  /** The link to hand over: shown once, only its token's hash is stored. */
  url: string
  expires_at: string
  /** Whether it was also sent to the person by mail (only when SMTP is configured). */
  emailed: boolean
}

/** What the page behind a link shows before the person chooses a password. */
export interface LinkDetails {
  purpose: LinkPurpose
  email: string
  name: string
  expires_at: string
}

const TOKEN = z
  .string({ error: 'give the token from the link' })
  .regex(/^[A-Za-z0-9_-]{43}$/, 'is not a token from a Switchyard link')
export const InspectLink = z.object({ token: TOKEN }).strict()
export const AcceptLink = z
  .object({ token: TOKEN, password: z.string({ error: 'choose a password' }).max(MAX_PASSWORD_LENGTH) })
  .strict()

/** One answer for a link unknown, used or expired: a guessed token learns nothing about the others. */
const LINK_GONE = 'this link has expired or has already been used: ask an admin for a new one'

/**
 * One-time, expiring links that set a person's password (docs/security.md, "People"): an invitation
 * for someone new, a reset for someone who forgot. The link carries 256 random bits in its fragment
 * (never sent to a server, so never in a log or a Referer); the database holds only their sha256.
 * Issuing a link ends the person's earlier unused ones; accepting one uses it up, sets the password
 * and ends every session the person had.
 */
export class PasswordLinks {
  constructor(
    private readonly db: Db,
    private readonly publicUrl: string,
    private readonly mailer: Mailer | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  async issue(user: User, issuedBy: string | null): Promise<IssuedLink> {
    const hasPassword = await this.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirst()
    if (!hasPassword) throw notFound('user')
    const purpose: LinkPurpose = hasPassword.password_hash ? 'reset' : 'invitation'
    const token = randomToken(32)
    const expiresAt = new Date(this.now() + LINK_TTL_MS[purpose])
    await this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('password_links')
        .where('user_id', '=', user.id)
        .where('used_at', 'is', null)
        .execute()
      await trx
        .insertInto('password_links')
        .values({
          token_hash: sha256(token),
          user_id: user.id,
          purpose,
          created_by: issuedBy,
          expires_at: expiresAt,
        })
        .execute()
    })
    const url = `${this.publicUrl}/welcome#token=${token}`
    const emailed = this.mailer ? await this.mailer.sendLink(user, purpose, url, expiresAt) : false
    return { purpose, url, expires_at: expiresAt.toISOString(), emailed }
  }

  async inspect(input: unknown): Promise<LinkDetails> {
    const { token } = parseOrThrow(InspectLink, input)
    const row = await this.db
      .selectFrom('password_links')
      .innerJoin('users', 'users.id', 'password_links.user_id')
      .select([
        'password_links.purpose',
        'password_links.expires_at',
        'password_links.used_at',
        'users.email',
        'users.name',
      ])
      .where('password_links.token_hash', '=', sha256(token))
      .executeTakeFirst()
    if (!row || row.used_at || new Date(row.expires_at).getTime() <= this.now())
      throw new AppError('gone', LINK_GONE)
    return {
      purpose: row.purpose,
      email: row.email,
      name: row.name,
      expires_at: new Date(row.expires_at).toISOString(),
    }
  }

  /**
   * Uses the link up and sets the password, in one transaction that locks the link's row: of two
   * browsers accepting the same link at once, one wins and the other is told the link is used.
   */
  async accept(input: unknown): Promise<User> {
    const { token, password } = parseOrThrow(AcceptLink, input)
    const details = await this.inspect({ token })
    await assertStrongPassword(password, [details.email, details.name])
    const passwordHash = await hashPassword(password)
    return this.db.transaction().execute(async (trx) => {
      const link = await trx
        .selectFrom('password_links')
        .select(['user_id', 'expires_at', 'used_at'])
        .where('token_hash', '=', sha256(token))
        .forUpdate()
        .executeTakeFirst()
      if (!link || link.used_at || new Date(link.expires_at).getTime() <= this.now())
        throw new AppError('gone', LINK_GONE)
      await trx
        .updateTable('password_links')
        .set({ used_at: new Date(this.now()) })
        .where('token_hash', '=', sha256(token))
        .execute()
      await trx
        .updateTable('users')
        .set({ password_hash: passwordHash })
        .where('id', '=', link.user_id)
        .execute()
      // Whoever held a session of this person before the reset (perhaps the reason for it) is out.
      await trx.deleteFrom('sessions').where('user_id', '=', link.user_id).execute()
      return trx
        .selectFrom('users')
        .select(['id', 'email', 'name', 'plan', 'role'])
        .where('id', '=', link.user_id)
        .executeTakeFirstOrThrow()
    })
  }
}
