import { parseScopes } from '../auth.ts'
import {
  cookieValue,
  htmlResponse,
  isRecord,
  parseBody,
  redirectResponse,
  type IncomingRequest,
  type SandboxResponse,
} from '../http.ts'
import { randomToken } from '../ids.ts'
import type { Account, BrowserSession, OAuthClient, User } from '../model.ts'
import type { SandboxStore } from '../state.ts'
import { MS_PER_HOUR, MS_PER_SECOND } from '../time.ts'
import { clientFor, redirectAllowed } from './clients.ts'
import { consentPage, oauthErrorPage, signInPage, type HiddenFields } from './pages.ts'
import { sandboxAccounts } from './sandbox-accounts.ts'

/**
 * The authorization-code flow's pages (sources: Zendesk authentication):
 *   GET  {base}/oauth/authorizations/new?response_type=code&client_id&redirect_uri&scope&state[&code_challenge&code_challenge_method=S256]
 *        → sign-in form (or consent, when a session cookie is present)
 *   POST {base}/oauth/authorizations/new   (email, password + the OAuth params) → consent page
 *   POST {base}/oauth/authorizations       (decision=allow|deny + params + session) → 302 to redirect_uri
 *   POST {base}/oauth/authorizations       (sign_out=1 + params + session) → sign-in form again
 * The sign-in sets a session cookie and also carries the session id in the consent form, so a
 * plain HTTP client without a cookie jar can drive the whole flow. `sign_out=1` is the sandbox's
 * "Use another account": it ends that session so another seeded user can sign in and grant.
 */

/** Authorization codes are valid for 120 seconds (oauth.yml `/oauth/tokens`). */
export const CODE_TTL_MS = 120 * MS_PER_SECOND
export const SESSION_TTL_MS = 2 * MS_PER_HOUR

const OAUTH_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const

export const sessionCookieName = (subdomain: string) => `zd_sandbox_session_${subdomain}`

interface AuthorizeParams {
  client: OAuthClient
  redirectUri: string
  scopes: string[]
  state: string | undefined
  codeChallenge: string | null
  fields: HiddenFields
}

type ParamCheck = { ok: true; params: AuthorizeParams } | { ok: false; response: SandboxResponse }

function errorPage(status: number, title: string, message: string): SandboxResponse {
  return htmlResponse(status, oauthErrorPage(title, message))
}

function redirectWith(redirectUri: string, values: Record<string, string | undefined>): SandboxResponse {
  const url = new URL(redirectUri)
  for (const [name, value] of Object.entries(values))
    if (value !== undefined) url.searchParams.set(name, value)
  return redirectResponse(url.toString())
}

/**
 * Client and redirect URI problems are shown as an error page, never redirected (RFC 6749
 * §4.1.2.1); every later problem goes back to the client as `?error=...`.
 */
function checkParams(store: SandboxStore, account: Account, source: Record<string, unknown>): ParamCheck {
  const fields: HiddenFields = {}
  for (const name of OAUTH_PARAMS)
    if (typeof source[name] === 'string' && source[name] !== '') fields[name] = source[name] as string
  const client = clientFor(store, account, fields.client_id)
  if (!client)
    return {
      ok: false,
      response: errorPage(400, 'Invalid client', 'The OAuth client_id is not valid for this account.'),
    }
  const redirectUri = fields.redirect_uri
  if (!redirectUri || !redirectAllowed(client, redirectUri)) {
    return {
      ok: false,
      response: errorPage(400, 'Invalid redirect URI', 'The redirect_uri does not match the OAuth client.'),
    }
  }
  const fail = (error: string, description: string) => ({
    ok: false as const,
    response: redirectWith(redirectUri, { error, error_description: description, state: fields.state }),
  })
  if (fields.response_type !== 'code') return fail('unsupported_response_type', 'response_type must be code.')
  const scopes = parseScopes(fields.scope)
  if (scopes.length === 0) return fail('invalid_scope', 'scope is required.')
  const challenge = fields.code_challenge ?? null
  if (challenge !== null && fields.code_challenge_method !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256.')
  // Z-HC-OAUTH: public clients must use PKCE.
  if (challenge === null && client.kind === 'public')
    return fail('invalid_request', 'Public clients must send a PKCE code_challenge.')
  return {
    ok: true,
    params: { client, redirectUri, scopes, state: fields.state, codeChallenge: challenge, fields },
  }
}

function liveSession(
  store: SandboxStore,
  account: Account,
  id: string | undefined,
  now: number,
): { session: BrowserSession; user: User } | undefined {
  const session = id ? store.sessions.get(id) : undefined
  if (!session || session.subdomain !== account.subdomain || session.expiresAt <= now) return undefined
  const user = account.users.get(session.userId)
  return user && user.active ? { session, user } : undefined
}

function renderConsent(
  base: string,
  account: Account,
  params: AuthorizeParams,
  session: BrowserSession,
  user: User,
  headers: Record<string, string> = {},
): SandboxResponse {
  return htmlResponse(
    200,
    consentPage({
      subdomain: account.subdomain,
      action: `${base}/oauth/authorizations`,
      fields: { ...params.fields, session: session.id },
      clientName: params.client.name,
      userName: `${user.name} (${user.email})`,
      scopes: params.scopes,
    }),
    headers,
  )
}

function renderSignIn(
  base: string,
  account: Account,
  params: AuthorizeParams,
  extra: { error?: string; email?: string; headers?: Record<string, string> } = {},
): SandboxResponse {
  return htmlResponse(
    200,
    signInPage({
      subdomain: account.subdomain,
      action: `${base}/oauth/authorizations/new`,
      fields: params.fields,
      clientName: params.client.name,
      accounts: sandboxAccounts(account),
      error: extra.error,
      email: extra.email,
    }),
    extra.headers,
  )
}

/**
 * "Use another account": forgets the session named by the form and the one in the cookie (a
 * browser may hold an older one), expires the cookie, and shows the sign-in form for the same
 * request, so the next user to sign in is the one who allows or denies.
 */
function signOut(
  store: SandboxStore,
  account: Account,
  req: IncomingRequest,
  form: Record<string, unknown>,
  base: string,
  params: AuthorizeParams,
): SandboxResponse {
  const cookieName = sessionCookieName(account.subdomain)
  for (const id of [form.session, cookieValue(req, cookieName)]) {
    if (typeof id === 'string' && store.sessions.get(id)?.subdomain === account.subdomain)
      store.sessions.delete(id)
  }
  const expired = `${cookieName}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`
  return renderSignIn(base, account, params, { headers: { 'set-cookie': expired } })
}

export function showAuthorize(
  store: SandboxStore,
  account: Account,
  req: IncomingRequest,
  base: string,
  now: number,
): SandboxResponse {
  const check = checkParams(store, account, Object.fromEntries(req.query))
  if (!check.ok) return check.response
  const signedIn = liveSession(store, account, cookieValue(req, sessionCookieName(account.subdomain)), now)
  if (signedIn) return renderConsent(base, account, check.params, signedIn.session, signedIn.user)
  return renderSignIn(base, account, check.params)
}

function formBody(req: IncomingRequest): Record<string, unknown> {
  const parsed = parseBody(req)
  return parsed.ok && isRecord(parsed.value) ? parsed.value : {}
}

export function signIn(
  store: SandboxStore,
  account: Account,
  req: IncomingRequest,
  base: string,
  now: number,
): SandboxResponse {
  const form = formBody(req)
  const check = checkParams(store, account, form)
  if (!check.ok) return check.response
  const email = typeof form.email === 'string' ? form.email.trim().toLowerCase() : ''
  const password = typeof form.password === 'string' ? form.password : ''
  const user = store.userByEmail(account, email)
  if (!user || !user.active || user.suspended || user.password === null || user.password !== password) {
    return renderSignIn(base, account, check.params, { error: 'Invalid email or password.', email })
  }
  user.lastLoginAt = now
  const session: BrowserSession = {
    id: randomToken(24),
    subdomain: account.subdomain,
    userId: user.id,
    expiresAt: now + SESSION_TTL_MS,
  }
  store.sessions.set(session.id, session)
  const cookie = `${sessionCookieName(account.subdomain)}=${session.id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_MS / MS_PER_SECOND}`
  return renderConsent(base, account, check.params, session, user, { 'set-cookie': cookie })
}

export function decide(
  store: SandboxStore,
  account: Account,
  req: IncomingRequest,
  base: string,
  now: number,
): SandboxResponse {
  const form = formBody(req)
  const check = checkParams(store, account, form)
  if (!check.ok) return check.response
  const params = check.params
  if (form.sign_out === '1') return signOut(store, account, req, form, base, params)
  const sessionId =
    typeof form.session === 'string' ? form.session : cookieValue(req, sessionCookieName(account.subdomain))
  const signedIn = liveSession(store, account, sessionId, now)
  if (!signedIn)
    return renderSignIn(base, account, params, { error: 'Your session has expired. Please sign in again.' })
  if (form.decision === 'deny') {
    return redirectWith(params.redirectUri, {
      error: 'access_denied',
      error_description: 'The end-user or authorization server denied the request.',
      state: params.state,
    })
  }
  if (form.decision !== 'allow') return errorPage(400, 'Invalid decision', 'decision must be allow or deny.')
  const code = randomToken(20)
  store.codes.set(code, {
    code,
    subdomain: account.subdomain,
    userId: signedIn.user.id,
    clientId: params.client.identifier,
    redirectUri: params.redirectUri,
    scopes: params.scopes,
    codeChallenge: params.codeChallenge,
    expiresAt: now + CODE_TTL_MS,
    used: false,
    issuedTokens: [],
  })
  return redirectWith(params.redirectUri, { code, state: params.state })
}
