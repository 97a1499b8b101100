import { recordNotFound } from '../errors.ts'
import { emptyResponse, type SandboxResponse } from '../http.ts'
import type { ApiContext, ApiRoute } from '../router.ts'

/**
 * `DELETE /api/v2/oauth/tokens/current.json` (oauth.yml `RevokeOAuthToken`): the bearer token that
 * makes the request revokes itself, 204 without a body. The product calls it when an integration is
 * disconnected (docs/sandbox.md). `current` names the caller's own OAuth token, so a request
 * authenticated otherwise has no such token.
 */
function revokeCurrent(ctx: ApiContext): SandboxResponse {
  if (ctx.credential.kind !== 'oauth') return recordNotFound()
  ctx.credential.token.revoked = true
  return emptyResponse(204)
}

export const oauthTokenRoutes: ApiRoute[] = [
  {
    method: 'DELETE',
    path: '/api/v2/oauth/tokens/current',
    access: 'any-user',
    scope: null,
    handle: revokeCurrent,
  },
]
