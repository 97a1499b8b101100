/**
 * Every platform lists a connected account the same way: who it is, then, in parentheses, the
 * account's part of the platform's address (a subdomain, a username, a team's slug; each
 * platform's identify says which). So "Ada Admin (acme)", "Acme Inc (acme)": the name a person
 * recognises, and the handle that tells two of them apart.
 * Without a name, or with one that only repeats the handle, the handle alone.
 */
export function accountName(name: string | null | undefined, handle: string): string {
  const who = name?.trim()
  return who && who !== handle ? `${who} (${handle})` : handle
}
