import type { Account } from '../model.ts'
import { SEED_PASSWORD } from '../seed.ts'
import type { SandboxAccounts } from '../../kit/sandbox-accounts.ts'

/**
 * The users a newcomer can sign in as on this account's sign-in page: those that still have the
 * seed password (seed.ts exports the password but not its user list, so the account's own users
 * are the source) and may sign in at all, as signIn in authorize.ts checks.
 */
export function sandboxAccounts(account: Account): SandboxAccounts {
  const users = [...account.users.values()]
    .filter((u) => u.password === SEED_PASSWORD && u.active && !u.suspended)
    .sort((a, b) => a.id - b.id)
    .map((u) => ({ email: u.email, name: u.name, note: u.role }))
  return { password: SEED_PASSWORD, people: users }
}
