import { createHash } from 'node:crypto'
import { sameSecret } from '../../kit/same-secret.ts'
import { parseScopes } from '../auth.ts'
import {
  header,
  isRecord,
  jsonResponse,
  parseBody,
  type IncomingRequest,
  type SandboxResponse,
} from '../http.ts'
import type { Account, OAuthClient, User } from '../model.ts'
import type { SandboxStore } from '../state.ts'
import { clientFor } from './clients.ts'
import { checkLifetimes, mintTokens, tokenResponseBody, type Minted } from './mint.ts'

/**
 * `POST {base}/oauth/tokens` (oauth.yml `CreateTokenForGrantType`). The vendor documents a JSON
 * body; the sandbox also accepts `application/x-www-form-urlencoded` because generic OAuth
 * clients (oauth4webapi and most libraries) send RFC 6749 form bodies. Client credentials may
 * come in the body or as HTTP Basic (RFC 6749 §2.3.1). Errors are RFC 6749 §5.2 JSON.
 */

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' }

function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): SandboxResponse {
  return jsonResponse(status, { error, error_description: description }, { ...NO_STORE, ...headers })
}

const invalidGrant = (description: string) => oauthError(400, 'invalid_grant', description)
const invalidRequest = (description: string) => oauthError(400, 'invalid_request', description)

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url')
}

interface ClientCredentials {
  id?: string
  secret?: string
  viaBasic: boolean
}

function clientCredentials(
  req: IncomingRequest,
  body: Record<string, unknown>,
): ClientCredentials | 'conflict' {
  const authorization = header(req, 'authorization')
  const fromBody = { id: str(body.client_id), secret: str(body.client_secret) }
  if (authorization?.toLowerCase().startsWith('basic ')) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    const id = decodeURIComponent(colon < 0 ? decoded : decoded.slice(0, colon))
    const secret = colon < 0 ? undefined : decodeURIComponent(decoded.slice(colon + 1))
    if (fromBody.id && fromBody.id !== id) return 'conflict'
    return { id, secret: secret || undefined, viaBasic: true }
  }
  return { ...fromBody, viaBasic: false }
}

interface GrantContext {
  store: SandboxStore
  account: Account
  client: OAuthClient
  /** True when the client proved itself with its secret. */
  secretVerified: boolean
  body: Record<string, unknown>
  now: number
}

function issued(ctx: GrantContext, minted: Minted, refreshExpiresInS: number): SandboxResponse {
  return jsonResponse(201, tokenResponseBody(minted, refreshExpiresInS), NO_STORE)
}

function authorizationCodeGrant(ctx: GrantContext): SandboxResponse {
  const { store, body, now } = ctx
  const code = store.codes.get(str(body.code) ?? '')
  if (!code || code.subdomain !== ctx.account.subdomain || code.clientId !== ctx.client.identifier) {
    return invalidGrant(
      'The provided authorization grant is invalid, expired, revoked, or was issued to another client.',
    )
  }
  if (code.used) {
    // RFC 6749 §4.1.2: a replayed code revokes what it already issued.
    for (const token of code.issuedTokens) {
      const access = store.accessTokens.get(token)
      if (access) access.revoked = true
      const refresh = store.refreshTokens.get(token)
      if (refresh) refresh.revoked = true
    }
    return invalidGrant('The authorization code has already been used.')
  }
  if (code.expiresAt <= now) return invalidGrant('The authorization code has expired.')
  if (str(body.redirect_uri) !== code.redirectUri)
    return invalidGrant('redirect_uri does not match the one used to obtain the code.')
  const verifier = str(body.code_verifier)
  if (code.codeChallenge !== null) {
    if (!verifier) return invalidGrant('code_verifier is required.')
    if (!sameSecret(pkceChallenge(verifier), code.codeChallenge))
      return invalidGrant('code_verifier does not match the code challenge.')
  } else if (ctx.client.kind === 'confidential' && !ctx.secretVerified) {
    return oauthError(401, 'invalid_client', 'Client authentication failed: client_secret is required.')
  }
  const lifetimes = checkLifetimes(body.expires_in, body.refresh_token_expires_in)
  if (!lifetimes.ok) return invalidRequest(lifetimes.problem)
  code.used = true
  const minted = mintTokens(
    store,
    {
      subdomain: code.subdomain,
      userId: code.userId,
      clientId: code.clientId,
      // The scopes the user approved; a token request cannot widen them.
      scopes: code.scopes,
      expiresInS: lifetimes.expiresInS,
      refreshExpiresInS: lifetimes.refreshExpiresInS,
    },
    now,
  )
  code.issuedTokens.push(minted.access.token, ...(minted.refresh ? [minted.refresh.token] : []))
  return issued(ctx, minted, lifetimes.refreshExpiresInS)
}

/** Refresh rotates: the presented refresh token is spent; the old access token lives until it expires. */
function refreshTokenGrant(ctx: GrantContext): SandboxResponse {
  const { store, body, now } = ctx
  if (ctx.client.kind === 'confidential' && !ctx.secretVerified) {
    return oauthError(401, 'invalid_client', 'Client authentication failed: client_secret is required.')
  }
  const refresh = store.refreshTokens.get(str(body.refresh_token) ?? '')
  const usable =
    refresh &&
    !refresh.used &&
    !refresh.revoked &&
    refresh.expiresAt > now &&
    refresh.subdomain === ctx.account.subdomain &&
    refresh.clientId === ctx.client.identifier
  if (!refresh || !usable)
    return invalidGrant('The refresh token is invalid, expired, revoked, or was already used.')
  // The docs' refresh example sends `scopes` (plural); both spellings may narrow, never widen.
  const requested = parseScopes(body.scope ?? body.scopes)
  if (requested.some((s) => !refresh.scopes.includes(s))) {
    return oauthError(
      400,
      'invalid_scope',
      'The requested scope exceeds the scope granted by the resource owner.',
    )
  }
  const lifetimes = checkLifetimes(
    body.expires_in,
    body.refresh_token_expires_in,
    refresh.accessTokenLifetimeS,
  )
  if (!lifetimes.ok) return invalidRequest(lifetimes.problem)
  refresh.used = true
  const minted = mintTokens(
    store,
    {
      subdomain: refresh.subdomain,
      userId: refresh.userId,
      clientId: refresh.clientId,
      scopes: requested.length > 0 ? requested : refresh.scopes,
      expiresInS: lifetimes.expiresInS,
      refreshExpiresInS: lifetimes.refreshExpiresInS,
    },
    now,
  )
  return issued(ctx, minted, lifetimes.refreshExpiresInS)
}

/** Tokens for the client itself act as the account's first admin (the client's owner). */
function clientCredentialsGrant(ctx: GrantContext): SandboxResponse {
  if (ctx.client.kind !== 'confidential' || !ctx.secretVerified) {
    return oauthError(
      401,
      'invalid_client',
      'client_credentials requires a confidential client and its secret.',
    )
  }
  const admins = [...ctx.account.users.values()]
    .filter((u: User) => u.role === 'admin' && u.active)
    .sort((a, b) => a.id - b.id)
  const owner = admins[0]
  if (!owner) return invalidGrant('The account has no admin to act for.')
  const lifetimes = checkLifetimes(ctx.body.expires_in, ctx.body.refresh_token_expires_in)
  if (!lifetimes.ok) return invalidRequest(lifetimes.problem)
  const scopes = parseScopes(ctx.body.scope ?? ctx.body.scopes)
  const minted = mintTokens(
    ctx.store,
    {
      subdomain: ctx.account.subdomain,
      userId: owner.id,
      clientId: ctx.client.identifier,
      scopes: scopes.length > 0 ? scopes : ['read'],
      expiresInS: lifetimes.expiresInS,
      refreshExpiresInS: lifetimes.refreshExpiresInS,
    },
    ctx.now,
  )
  return issued(ctx, minted, lifetimes.refreshExpiresInS)
}

export function handleTokenRequest(
  store: SandboxStore,
  account: Account,
  req: IncomingRequest,
  now: number,
): SandboxResponse {
  const parsed = parseBody(req)
  if (!parsed.ok) return invalidRequest('The request body could not be parsed.')
  const body = isRecord(parsed.value) ? parsed.value : {}
  const credentials = clientCredentials(req, body)
  if (credentials === 'conflict')
    return invalidRequest('client_id in the body does not match HTTP Basic credentials.')
  const client = clientFor(store, account, credentials.id)
  const challenge: Record<string, string> = credentials.viaBasic
    ? { 'www-authenticate': 'Basic realm="Zendesk"' }
    : {}
  if (!client)
    return oauthError(401, 'invalid_client', 'Client authentication failed: unknown client.', challenge)
  let secretVerified = false
  if (credentials.secret !== undefined) {
    if (client.secret === null || !sameSecret(credentials.secret, client.secret)) {
      return oauthError(
        401,
        'invalid_client',
        'Client authentication failed: wrong client_secret.',
        challenge,
      )
    }
    secretVerified = true
  }
  const ctx: GrantContext = { store, account, client, secretVerified, body, now }
  switch (str(body.grant_type)) {
    case 'authorization_code':
      return authorizationCodeGrant(ctx)
    case 'refresh_token':
      return refreshTokenGrant(ctx)
    case 'client_credentials':
      return clientCredentialsGrant(ctx)
    case undefined:
      return invalidRequest('grant_type is required.')
    default:
      return oauthError(
        400,
        'unsupported_grant_type',
        `grant_type ${String(body.grant_type)} is not supported.`,
      )
  }
}
