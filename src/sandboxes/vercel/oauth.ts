import {
  header,
  isRecord,
  jsonResponse,
  parseBody,
  type IncomingRequest,
  type SandboxResponse,
} from './http.ts'
import { accessToken } from './ids.ts'
import type { VercelSandbox } from './sandbox.ts'

/**
 * `POST /v2/oauth/access_token` (sources: Vercel integration OAuth, V-INTEG, V-EXINT): form-encoded (JSON also accepted)
 * `client_id`, `client_secret`, `code`, `redirect_uri`. Error bodies for this endpoint are not
 * documented (§4 item 9); the sandbox answers in RFC 6749 §5.2 form
 * (`{"error":"invalid_grant","error_description":"..."}`): 400 invalid_request / invalid_grant,
 * 401 invalid_client for an unknown client or a wrong secret.
 */
function oauthError(status: number, error: string, description: string): SandboxResponse {
  return jsonResponse(status, { error, error_description: description }, { 'cache-control': 'no-store' })
}

export function handleAccessToken(sandbox: VercelSandbox, req: IncomingRequest): SandboxResponse {
  if (req.method !== 'POST')
    return jsonResponse(405, {
      error: { code: 'method_unknown', message: 'This endpoint only responds to POST' },
    })
  const parsed = parseBody(req)
  if (!parsed.ok || (parsed.value !== undefined && !isRecord(parsed.value)))
    return oauthError(400, 'invalid_request', 'The request body could not be parsed')
  const body = (parsed.value ?? {}) as Record<string, unknown>
  const field = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : undefined)
  // client_secret_basic is tolerated as well.
  const basic = /^Basic\s+(\S+)$/i.exec(header(req, 'authorization') ?? '')
  let clientId = field('client_id')
  let clientSecret = field('client_secret')
  if (basic && !clientSecret) {
    const [id, secret] = Buffer.from(basic[1] as string, 'base64')
      .toString()
      .split(':')
    clientId ??= id
    clientSecret = secret
  }
  for (const [name, value] of [
    ['client_id', clientId],
    ['client_secret', clientSecret],
    ['code', field('code')],
    ['redirect_uri', field('redirect_uri')],
  ] as const) {
    if (!value) return oauthError(400, 'invalid_request', `Missing required parameter: ${name}`)
  }
  const client = sandbox.store.clients.get(clientId as string)
  if (!client || client.clientSecret !== clientSecret)
    return oauthError(401, 'invalid_client', 'Invalid client_id or client_secret')
  const code = sandbox.store.codes.get(field('code') as string)
  if (!code || code.clientId !== client.clientId)
    return oauthError(400, 'invalid_grant', 'The authorization code is invalid')
  if (code.used) return oauthError(400, 'invalid_grant', 'The authorization code has already been used')
  if (sandbox.now() >= code.expiresAt)
    return oauthError(400, 'invalid_grant', 'The authorization code has expired')
  if (code.redirectUri !== field('redirect_uri'))
    return oauthError(400, 'invalid_grant', 'The redirect_uri does not match the one used for authorization')
  code.used = true
  const token = {
    token: accessToken(),
    userId: code.userId,
    teamId: code.teamId,
    installationId: code.installationId,
    createdAt: sandbox.now(),
  }
  sandbox.store.tokens.set(token.token, token)
  return jsonResponse(
    200,
    {
      token_type: 'Bearer',
      access_token: token.token,
      installation_id: code.installationId,
      user_id: code.userId,
      team_id: code.teamId,
    },
    { 'cache-control': 'no-store' },
  )
}
