import type { TrelloSandbox } from '../sandbox.ts'
import { SEED } from '../seed.ts'
import type { SandboxAccounts } from '../../kit/sandbox-accounts.ts'

/**
 * The seeded members (seed.ts) a newcomer can sign in as: those still in the store with the seed
 * password, so a sandbox started without the seed, or a member whose password changed, is not
 * offered.
 */
export function sandboxAccounts(sb: TrelloSandbox): SandboxAccounts {
  const members = Object.values(SEED.members)
    .filter((seeded) => sb.store.members.get(seeded.id)?.password === SEED.password)
    .map((seeded) => ({ email: seeded.email, name: seeded.fullName, note: `@${seeded.username}` }))
  return { password: SEED.password, people: members }
}
