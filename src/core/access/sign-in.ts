import { sql } from 'kysely'
import { z } from 'zod'
import { AppError } from '../errors.ts'
import type { Db } from '../store/database.ts'
import { parseOrThrow } from '../validation.ts'
import { MAX_PASSWORD_LENGTH, verifyPassword } from './passwords.ts'
import type { User } from './users.ts'

/** Failures forgiven before answers slow down: per account (a person mistyping), per client address (shared by an office behind NAT). */
export const FREE_FAILURES = { account: 5, client: 20 } as const
/** Failures older than this are forgotten. */
export const FAILURE_WINDOW_MS = 15 * 60 * 1000
/** The longest a refused sign-in makes the next one wait. */
export const MAX_WAIT_MS = 5 * 60 * 1000

/** How long after the last failure the next attempt must wait: doubling from one second past the free ones. */
export function waitAfter(failures: number, free: number): number {
  if (failures < free) return 0
  return Math.min(MAX_WAIT_MS, 1000 * 2 ** (failures - free))
}

export const PasswordSignInInput = z
  .object({
    email: z.string({ error: 'give your email address' }).trim().min(1, 'give your email address').max(254),
    password: z.string({ error: 'give your password' }).min(1, 'give your password').max(MAX_PASSWORD_LENGTH),
  })
  .strict()

/** One answer for every refusal, so no answer tells whether the email has an account or a password. */
export const WRONG_EMAIL_OR_PASSWORD = 'that email and password do not match an account'

/**
 * Signing in with email and password (docs/security.md, "People"). An unknown email, an account with
 * no password yet and a wrong password get the same answer after the same hashing work. Repeated
 * failures for one email, or from one client address, slow the next attempts down: the answer is
 * 429 with Retry-After, before any hashing, so a guesser learns nothing from it and costs little.
 */
export class PasswordSignIn {
  private lastPurge = Number.NEGATIVE_INFINITY

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async signIn(input: unknown, clientAddress: string): Promise<User> {
    const { email, password } = parseOrThrow(PasswordSignInInput, input)
    const keys = { account: `account:${email.toLowerCase()}`, client: `client:${clientAddress}` }
    await this.assertNotSlowed(keys)
    const row = await this.db
      .selectFrom('users')
      .select(['id', 'email', 'name', 'plan', 'role', 'password_hash'])
      .where('email', '=', email.toLowerCase())
      .executeTakeFirst()
    const matches = await verifyPassword(password, row?.password_hash)
    if (!row || !matches) {
      if (this.now() - this.lastPurge > FAILURE_WINDOW_MS) {
        this.lastPurge = this.now()
        await this.purge()
      }
      await this.recordFailure(keys.account)
      await this.recordFailure(keys.client)
      throw new AppError('unauthenticated', WRONG_EMAIL_OR_PASSWORD)
    }
    // The person is back: their own mistakes are forgiven (the client's count stays, so one good
    // account cannot reset a guesser's address).
    await this.db.deleteFrom('sign_in_failures').where('key', '=', keys.account).execute()
    return { id: row.id, email: row.email, name: row.name, plan: row.plan, role: row.role }
  }

  private async assertNotSlowed(keys: { account: string; client: string }): Promise<void> {
    const rows = await this.db
      .selectFrom('sign_in_failures')
      .select(['key', 'failures', 'last_failure_at'])
      .where('key', 'in', [keys.account, keys.client])
      .execute()
    let waitMs = 0
    for (const row of rows) {
      const since = this.now() - new Date(row.last_failure_at).getTime()
      if (since > FAILURE_WINDOW_MS) continue
      const free = row.key === keys.account ? FREE_FAILURES.account : FREE_FAILURES.client
      waitMs = Math.max(waitMs, waitAfter(row.failures, free) - since)
    }
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000)
      throw new AppError(
        'rate_limited',
        `too many failed sign-ins: try again in ${seconds} second${seconds === 1 ? '' : 's'}`,
        { retryAfterSeconds: seconds },
      )
    }
  }

  /** One more failure for `key`, counting from one again when the last is older than the window. */
  private async recordFailure(key: string): Promise<void> {
    const at = new Date(this.now())
    const windowStart = new Date(this.now() - FAILURE_WINDOW_MS)
    await this.db
      .insertInto('sign_in_failures')
      .values({ key, failures: 1, last_failure_at: at })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          failures: sql`case when sign_in_failures.last_failure_at < ${windowStart} then 1 else sign_in_failures.failures + 1 end`,
          last_failure_at: at,
        }),
      )
      .execute()
  }

  /** Forgets failures past the window, so the table holds only recent ones. */
  async purge(): Promise<void> {
    await this.db
      .deleteFrom('sign_in_failures')
      .where('last_failure_at', '<', new Date(this.now() - FAILURE_WINDOW_MS))
      .execute()
  }
}
