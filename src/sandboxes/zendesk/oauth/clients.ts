import type { Account, OAuthClient } from '../model.ts'
import type { SandboxStore } from '../state.ts'

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/** The client, if it exists and may be used on this account (global clients work everywhere). */
export function clientFor(
  store: SandboxStore,
  account: Account,
  identifier: string | undefined,
): OAuthClient | undefined {
  if (!identifier) return undefined
  const client = store.clients.get(identifier)
  if (!client || (client.subdomain !== null && client.subdomain !== account.subdomain)) return undefined
  return client
}

/**
 * Exact string match for registered URIs (OAuth 2.0 Security BCP). The seeded client instead
 * accepts any `http://localhost:*` or `http://127.0.0.1:*` URI, any port and path, so local
 * tools with ephemeral callback ports can use it without registration.
 */
export function redirectAllowed(client: OAuthClient, redirectUri: string): boolean {
  if (client.redirect.kind === 'exact') return client.redirect.uris.includes(redirectUri)
  try {
    const url = new URL(redirectUri)
    return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) && url.hash === ''
  } catch {
    return false
  }
}
