import type { Integrations } from '../../core/connections/integrations.ts'

/**
 * The caller's connected accounts per platform, as the `integration` argument offers them: by
 * account name, or by id where two integrations of a platform share a name (a name must pick one).
 * Disconnected integrations are left out; one that needs reconnecting stays, so a call says so.
 */
export type Accounts = Map<string, string[]>

export async function accountsOf(
  integrations: Integrations,
  userId: string,
  only?: Set<string>,
): Promise<Accounts> {
  const rows = (await integrations.list(userId)).filter(
    (row) => row.status !== 'disconnected' && (!only || only.has(row.id)),
  )
  const accounts: Accounts = new Map()
  for (const row of rows) {
    const named = rows.filter(
      (other) => other.platform === row.platform && other.account_name === row.account_name,
    )
    const list = accounts.get(row.platform) ?? []
    list.push(named.length > 1 ? row.id : row.account_name)
    accounts.set(row.platform, list)
  }
  // Code-unit order, not the locale's: the same list on every instance.
  for (const list of accounts.values()) list.sort()
  return accounts
}

/** Changes exactly when the tool listing the accounts produce changes. */
export function fingerprintOf(accounts: Accounts): string {
  return JSON.stringify([...accounts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
