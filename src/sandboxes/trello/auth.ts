import type { Actor } from './context.ts'
import { invalidKey, invalidToken, unauthorizedPermission } from './errors.ts'
import { header, type IncomingRequest, type SandboxResponse } from './http.ts'
import { USER_TOKEN } from './ids.ts'
import type { Scope } from './model.ts'
import { parseOAuthHeader } from './oauth1/signature.ts'
import { verifySignature } from './oauth1/verify.ts'
import type { Params } from './params.ts'
import type { TrelloSandbox } from './sandbox.ts'
import { isExpired } from './tokens.ts'

/**
 * API credentials, accepted three ways (sources: Trello authentication):
 *   1. `key` and `token` as query or body parameters;
 *   2. `Authorization: OAuth oauth_consumer_key="<key>", oauth_token="<token>"` (unsigned, as
 *      TrelloDotNet sends it);
 *   3. a fully signed OAuth 1.0a Authorization header (HMAC-SHA1 with the app secret and the
 *      token secret, '' for tokens that did not come from OAuthGetAccessToken).
 * The header wins over parameters. Checks run key → token → signature.
 */
export type AuthResult =
  { ok: true; actor: Actor; key: string; token: string } | { ok: false; response: SandboxResponse }

export function authenticate(sb: TrelloSandbox, req: IncomingRequest, params: Params): AuthResult {
  const oauth = parseOAuthHeader(header(req, 'authorization'))
  const key = oauth?.oauth_consumer_key ?? params.string('key')
  const tokenValue = oauth?.oauth_token ?? params.string('token')
  const { store } = sb
  const app = key ? store.apps.get(key) : undefined
  if (!key || !app) return { ok: false, response: invalidKey() }
  // A key without a token reaches only public models; the sandbox has none to offer [UNV].
  if (!tokenValue) return { ok: false, response: unauthorizedPermission() }
  const token = USER_TOKEN.test(tokenValue) ? store.tokens.get(tokenValue) : undefined
  if (!token || token.key !== key) return { ok: false, response: invalidToken() }
  if (isExpired(token, sb.now())) {
    store.revokeToken(token.value)
    return { ok: false, response: invalidToken() }
  }
  const member = store.members.get(token.idMember)
  if (!member) return { ok: false, response: invalidToken() }
  if (oauth?.oauth_signature !== undefined) {
    const problem = verifySignature(
      req,
      { oauth, fromHeader: true },
      { consumer: app.secret, token: token.secret },
      sb.nonces,
      sb.now(),
    )
    if (problem) return { ok: false, response: problem }
  }
  return {
    ok: true,
    actor: { member, app, token, scopes: new Set<Scope>(token.scopes) },
    key,
    token: token.value,
  }
}
