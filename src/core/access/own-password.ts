import { z } from 'zod'
import { AppError } from '../errors.ts'
import type { Db } from '../store/database.ts'
import { parseOrThrow } from '../validation.ts'
import { assertStrongPassword, hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from './passwords.ts'
import type { User } from './users.ts'

const ChangePassword = z
  .object({
    current_password: z.string().max(MAX_PASSWORD_LENGTH).optional(),
    new_password: z.string({ error: 'choose a new password' }).max(MAX_PASSWORD_LENGTH),
  })
  .strict()

/**
 * A person sets or changes their own password. The first admin of a fresh install signs in with the
 * generated API key and sets one here with no current password; once one is set, changing it needs
 * the current one, so a browser left signed in cannot take the account over.
 */
export class OwnPassword {
  constructor(private readonly db: Db) {}

  async hasPassword(userId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', userId)
      .executeTakeFirst()
    return Boolean(row?.password_hash)
  }

  async change(user: User, input: unknown): Promise<void> {
    const { current_password, new_password } = parseOrThrow(ChangePassword, input)
    const row = await this.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirst()
    if (row?.password_hash) {
      // 400 naming the field, not 401: the person's session is fine, only this field is wrong.
      const field = 'current_password'
      if (current_password === undefined || !(await verifyPassword(current_password, row.password_hash)))
        throw new AppError('invalid_input', `${field} does not match your password`, {
          errors: [{ field, message: 'does not match your password' }],
        })
    }
    await assertStrongPassword(new_password, [user.email, user.name], 'new_password')
    await this.db
      .updateTable('users')
      .set({ password_hash: await hashPassword(new_password) })
      .where('id', '=', user.id)
      .execute()
  }
}
