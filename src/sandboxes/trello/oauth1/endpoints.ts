import { invalidKey, invalidToken } from '../errors.ts'
import {
  formResponse,
  header,
  htmlResponse,
  isRecord,
  parseBody,
  redirectResponse,
  textResponse,
  type IncomingRequest,
  type SandboxResponse,
} from '../http.ts'
import { hex } from '../ids.ts'
import type { Member, RequestToken } from '../model.ts'
import { originAllowed } from '../origins.ts'
import type { TrelloSandbox } from '../sandbox.ts'
import { MS_PER_HOUR } from '../time.ts'
import { mintToken, parseExpiration, parseScopes } from '../tokens.ts'
import type { Grant, GrantCheck, GrantFlow } from '../grant/flow.ts'
import { deniedPage, verifierPage } from '../grant/pages.ts'
import { parseOAuthHeader } from './signature.ts'
import { verifySignature, type SignedRequest } from './verify.ts'

/**
 * OAuth 1.0a three-legged flow (§2.1, T-ARCH; RFC 5849):
 *   1. `OAuthGetRequestToken` — signed with the app key + secret, `oauth_callback` →
 *      `oauth_token`, `oauth_token_secret`, `oauth_callback_confirmed=true` (form-encoded);
 *   2. `OAuthAuthorizeToken?oauth_token=..&name=..&scope=..&expiration=..` — sign-in and
 *      allow/deny pages, then 302 `{oauth_callback}?oauth_token=..&oauth_verifier=..`
 *      (`oob`: a page showing the verifier; deny: `?oauth_problem=user_refused` [UNV]);
 *   3. `OAuthGetAccessToken` — signed with the request token secret, `oauth_verifier` →
 *      `oauth_token` (a normal 64-hex API token) and `oauth_token_secret`.
 * OAuth parameters may come in the Authorization header, the query or a form body.
 */

/** Request tokens live one hour [UNV]. */
export const REQUEST_TOKEN_TTL_MS = MS_PER_HOUR

function signedRequest(req: IncomingRequest): SignedRequest {
  const fromHeader = parseOAuthHeader(header(req, 'authorization'))
  if (fromHeader) return { oauth: fromHeader, fromHeader: true }
  const parsed = parseBody(req)
  const body = parsed.ok && isRecord(parsed.value) ? parsed.value : {}
  const oauth: Record<string, string> = {}
  for (const [name, value] of [...req.query, ...Object.entries(body)]) {
    if (name.startsWith('oauth_') && typeof value === 'string') oauth[name] = value
  }
  return { oauth, fromHeader: false }
}

export function getRequestToken(sb: TrelloSandbox, req: IncomingRequest): SandboxResponse {
  const signed = signedRequest(req)
  const app = sb.store.apps.get(signed.oauth.oauth_consumer_key ?? '')
  if (!app) return invalidKey()
  const problem = verifySignature(req, signed, { consumer: app.secret, token: '' }, sb.nonces, sb.now())
  if (problem) return problem
  const requestToken: RequestToken = {
    value: hex(16),
    secret: hex(16),
    key: app.key,
    // RFC 5849 requires oauth_callback; a missing one is taken as out-of-band [UNV leniency].
    callback: signed.oauth.oauth_callback || 'oob',
    createdAt: sb.now(),
    verifier: null,
    idMember: null,
    scopes: [],
    expiration: '30days',
    name: app.name,
    used: false,
  }
  sb.store.requestTokens.set(requestToken.value, requestToken)
  return formResponse(200, {
    oauth_token: requestToken.value,
    oauth_token_secret: requestToken.secret,
    oauth_callback_confirmed: 'true',
  })
}

function liveRequestToken(sb: TrelloSandbox, value: string | undefined): RequestToken | undefined {
  const token = value ? sb.store.requestTokens.get(value) : undefined
  if (!token || token.used || token.createdAt + REQUEST_TOKEN_TTL_MS <= sb.now()) return undefined
  return token
}

/** Step 2: the same sign-in and consent pages as /1/authorize. */
export function authorizeTokenFlow(sb: TrelloSandbox, action: string): GrantFlow {
  const resolve = (values: Record<string, string>): GrantCheck => {
    const requestToken = liveRequestToken(sb, values.oauth_token)
    const app = requestToken && sb.store.apps.get(requestToken.key)
    if (!requestToken || !app) return { ok: false, response: textResponse(400, 'invalid token') }
    const fields: Record<string, string> = { oauth_token: requestToken.value }
    for (const name of ['name', 'scope', 'expiration'])
      if (values[name]) fields[name] = values[name] as string
    const scopes = parseScopes(fields.scope)
    if (!scopes) return { ok: false, response: textResponse(400, 'invalid scope') }
    const expiration = parseExpiration(fields.expiration, '30days')
    if (!expiration) return { ok: false, response: textResponse(400, 'invalid expiration') }
    if (requestToken.callback !== 'oob' && !originAllowed(app, requestToken.callback))
      return { ok: false, response: textResponse(400, 'Invalid return_url') }
    return { ok: true, grant: { app, appName: fields.name ?? app.name, scopes, expiration, fields } }
  }

  const complete = (grant: Grant, member: Member, decision: 'allow' | 'deny') => {
    const requestToken = sb.store.requestTokens.get(grant.fields.oauth_token as string) as RequestToken
    const callback = requestToken.callback
    if (decision === 'deny') {
      requestToken.used = true
      if (callback === 'oob') return htmlResponse(200, deniedPage(grant.appName))
      return redirectResponse(withQuery(callback, { oauth_problem: 'user_refused' }))
    }
    Object.assign(requestToken, {
      verifier: hex(16),
      idMember: member.id,
      scopes: grant.scopes,
      expiration: grant.expiration,
      name: grant.appName,
    })
    const verifier = requestToken.verifier as string
    if (callback === 'oob') return htmlResponse(200, verifierPage(grant.appName, verifier))
    return redirectResponse(
      withQuery(callback, { oauth_token: requestToken.value, oauth_verifier: verifier }),
    )
  }

  return { action, resolve, complete }
}

export function getAccessToken(sb: TrelloSandbox, req: IncomingRequest): SandboxResponse {
  const signed = signedRequest(req)
  const app = sb.store.apps.get(signed.oauth.oauth_consumer_key ?? '')
  if (!app) return invalidKey()
  const requestToken = liveRequestToken(sb, signed.oauth.oauth_token)
  if (!requestToken || requestToken.key !== app.key) return invalidToken()
  const problem = verifySignature(
    req,
    signed,
    { consumer: app.secret, token: requestToken.secret },
    sb.nonces,
    sb.now(),
  )
  if (problem) return problem
  const member = requestToken.idMember ? sb.store.members.get(requestToken.idMember) : undefined
  if (!member || !requestToken.verifier || signed.oauth.oauth_verifier !== requestToken.verifier)
    return textResponse(401, 'invalid verifier')
  requestToken.used = true
  const token = mintToken(sb, {
    app,
    member,
    scopes: requestToken.scopes,
    expiration: requestToken.expiration,
    name: requestToken.name,
    secret: hex(16),
  })
  return formResponse(200, { oauth_token: token.value, oauth_token_secret: token.secret })
}

function withQuery(url: string, values: Record<string, string>): string {
  const parsed = new URL(url)
  for (const [name, value] of Object.entries(values)) parsed.searchParams.set(name, value)
  return parsed.toString()
}
