import { header, type IncomingRequest } from './http.ts'
import type { AccessToken, Account, Role, User } from './model.ts'
import type { SandboxStore } from './state.ts'

/**
 * API authentication (sources: Zendesk authentication): `Authorization: Bearer <oauth token>`,
 * `Basic base64("{email}/token:{api_token}")`, and `Basic base64("{email}:{password}")`.
 * Zendesk has been retiring password access; the sandbox keeps it so curl demos stay short.
 */

export type Credential =
  | { kind: 'none' }
  | { kind: 'oauth'; user: User; token: AccessToken }
  | { kind: 'api_token'; user: User }
  | { kind: 'password'; user: User }

/** Which failure body applies: bearer failures use OAuth's, Basic failures Zendesk's own. */
export type AuthFailure = 'bearer' | 'api_token' | 'password'

export type AuthOutcome = { ok: true; credential: Credential } | { ok: false; failure: AuthFailure }

export function authenticate(
  store: SandboxStore,
  account: Account,
  req: IncomingRequest,
  now: number,
): AuthOutcome {
  const authorization = header(req, 'authorization')?.trim()
  if (!authorization) return { ok: true, credential: { kind: 'none' } }
  const [scheme = '', ...rest] = authorization.split(/\s+/)
  const value = rest.join(' ')
  if (scheme.toLowerCase() === 'bearer') return bearer(store, account, value, now)
  if (scheme.toLowerCase() === 'basic') return basic(account, value)
  return { ok: false, failure: 'api_token' }
}

function bearer(store: SandboxStore, account: Account, value: string, now: number): AuthOutcome {
  const token = store.accessTokens.get(value)
  const usable =
    token !== undefined &&
    !token.revoked &&
    (token.expiresAt === null || token.expiresAt > now) &&
    // A token is bound to the account that issued it: elsewhere it is simply invalid.
    token.subdomain === account.subdomain
  if (!usable) return { ok: false, failure: 'bearer' }
  const user = account.users.get(token.userId)
  if (!user || !user.active || user.suspended) return { ok: false, failure: 'bearer' }
  return { ok: true, credential: { kind: 'oauth', user, token } }
}

function basic(account: Account, value: string): AuthOutcome {
  let decoded: string
  try {
    decoded = Buffer.from(value, 'base64').toString('utf8')
  } catch {
    return { ok: false, failure: 'api_token' }
  }
  const colon = decoded.indexOf(':')
  if (colon < 0) return { ok: false, failure: 'api_token' }
  const login = decoded.slice(0, colon)
  const secret = decoded.slice(colon + 1)
  if (login.endsWith('/token')) {
    const user = findActiveUser(account, login.slice(0, -'/token'.length))
    const apiToken = account.apiTokens.get(secret)
    // API tokens are account-wide in Zendesk: the email picks which user the call acts as.
    if (!user || !apiToken || !apiToken.active) return { ok: false, failure: 'api_token' }
    return { ok: true, credential: { kind: 'api_token', user } }
  }
  const user = findActiveUser(account, login)
  if (!user || user.password === null || user.password !== secret) return { ok: false, failure: 'password' }
  return { ok: true, credential: { kind: 'password', user } }
}

function findActiveUser(account: Account, email: string): User | undefined {
  const wanted = email.trim().toLowerCase()
  for (const user of account.users.values()) {
    if (user.email === wanted && user.active && !user.suspended) return user
  }
  return undefined
}

/** Who may call a route. End users reach almost nothing of the agent API (they use Requests). */
export type Access = 'any-user' | 'agent' | 'admin'

export function roleAllows(role: Role, access: Access): boolean {
  if (access === 'any-user') return true
  if (access === 'agent') return role === 'agent' || role === 'admin'
  return role === 'admin'
}

/** Resources that can be scoped, per oauth.yml "Resources that can be scoped". */
export const SCOPE_RESOURCES = [
  'tickets',
  'users',
  'auditlogs',
  'organizations',
  'hc',
  'apps',
  'triggers',
  'automations',
  'targets',
  'webhooks',
  'macros',
  'requests',
  'satisfaction_ratings',
  'dynamic_content',
  'any_channel',
  'web_widget',
  'zis',
] as const
export type ScopeResource = (typeof SCOPE_RESOURCES)[number]

const VALID_SCOPE = new RegExp(`^(read|write|impersonate|(${SCOPE_RESOURCES.join('|')}):(read|write))$`)

export function isValidScope(scope: string): boolean {
  return VALID_SCOPE.test(scope)
}

/** Splits a grant-type `scope` string ("read write") or accepts a `scopes` array. */
export function parseScopes(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string' && s !== '')
  if (typeof raw === 'string') return raw.split(/[\s,]+/).filter((s) => s !== '')
  return []
}

/**
 * `read` opens GET, `write` opens POST/PUT/PATCH/DELETE, `resource:read|write` the same for one
 * resource (oauth.yml "Scope"). A token holding any unrecognised scope is issued anyway but
 * every request with it is Forbidden (oauth.yml note), so one bad scope spoils the token.
 * `resource === null` means the route needs no scope beyond a valid token (e.g. /users/me).
 */
export function scopeAllows(
  scopes: readonly string[],
  resource: ScopeResource | null,
  method: string,
): boolean {
  if (scopes.length === 0 || scopes.some((scope) => !isValidScope(scope))) return false
  if (resource === null) return true
  const access = method === 'GET' || method === 'HEAD' ? 'read' : 'write'
  return scopes.includes(access) || scopes.includes(`${resource}:${access}`)
}
