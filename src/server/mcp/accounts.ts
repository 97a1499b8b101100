import type { Integrations } from '../../core/connections/integrations.ts'

/**
 * How many accounts of one platform a listing names. A user with 1,000 integrations would otherwise
 * get 1,000 names in every step tool's `integration` argument, read from storage on every listing
 * and call (issue 22, §7); past this, the argument takes any account name or id as a plain string.
 */
export const MAX_OFFERED_ACCOUNTS = 20

/**
 * The caller's connected accounts on one platform, as the `integration` argument offers them: by
 * account name, or by id where two integrations of a platform share a name (a name must pick one),
 * and whether the user has more than these. Disconnected integrations are left out; one that needs
 * reconnecting stays, so a call says so.
 */
export interface PlatformAccounts {
  names: string[]
  more: boolean
}
export type Accounts = Map<string, PlatformAccounts>

export async function accountsOf(
  integrations: Integrations,
  userId: string,
  platforms: Iterable<string>,
  only?: ReadonlySet<string>,
): Promise<Accounts> {
  const accounts: Accounts = new Map()
  await Promise.all(
    [...new Set(platforms)].map(async (platform) => {
      const found = await platformAccounts(integrations, userId, platform, only)
      if (found.names.length) accounts.set(platform, found)
    }),
  )
  return accounts
}

/** One platform's accounts, as accountsOf names them. */
export async function platformAccounts(
  integrations: Integrations,
  userId: string,
  platform: string,
  only?: ReadonlySet<string>,
  limit = MAX_OFFERED_ACCOUNTS,
): Promise<PlatformAccounts> {
  // One more than shown, so that a name shared across the page's edge is still told apart by id.
  const { accounts: rows, more } = await integrations.offered(userId, platform, limit + 1, only)
  const names = rows.slice(0, limit).map((row, i) => {
    const shared =
      rows[i - 1]?.account_name === row.account_name || rows[i + 1]?.account_name === row.account_name
    return shared ? row.id : row.account_name
  })
  // Code-unit order, not the locale's: the same list on every instance.
  names.sort()
  return { names, more: more || rows.length > limit }
}

/** Changes exactly when the tool listing the accounts produce changes. */
export function fingerprintOf(accounts: Accounts): string {
  return JSON.stringify([...accounts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
