import { authenticate } from './auth.ts'
import type { Actor, ApiContext } from './context.ts'
import { ApiError, invalidJson, routeNotFound, unauthorizedPermission } from './errors.ts'
import { emptyResponse, parseBody, textResponse, type IncomingRequest, type SandboxResponse } from './http.ts'
import { Params } from './params.ts'
import { apiRouter } from './routes/index.ts'
import type { TrelloSandbox } from './sandbox.ts'

/**
 * The `/1/...` REST pipeline: route → arguments → credentials → rate limit → scope → handler.
 * Every answer carries `Access-Control-Allow-Origin: *` as Trello's API does, and every
 * authenticated answer the rate-limit headers.
 */

const CORS = { 'access-control-allow-origin': '*' }
const PREFLIGHT = {
  ...CORS,
  'access-control-allow-methods': 'GET, PUT, POST, DELETE',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept',
  'access-control-max-age': '600',
}

function withHeaders(response: SandboxResponse, headers: Record<string, string>): SandboxResponse {
  return { ...response, headers: { ...headers, ...response.headers } }
}

export async function handleApi(
  sb: TrelloSandbox,
  req: IncomingRequest,
  path: string,
  as?: Actor,
): Promise<SandboxResponse> {
  if (req.method === 'OPTIONS') return emptyResponse(204, PREFLIGHT)
  const matched = apiRouter.match(req.method, path)
  if (!matched) return withHeaders(routeNotFound(), CORS)
  const body = parseBody(req)
  if (!body.ok) return withHeaders(invalidJson(), CORS)
  const params = Params.merge(req.query, body.value)

  let actor: Actor
  let rateHeaders: Record<string, string> = {}
  try {
    if (as) actor = as
    else {
      const auth = authenticate(sb, req, params)
      if (!auth.ok) return withHeaders(auth.response, CORS)
      const decision = sb.rateLimiter.take(auth.key, auth.token, sb.now())
      if (!decision.allowed) return withHeaders(decision.response, CORS)
      actor = auth.actor
      rateHeaders = decision.headers
    }
  } catch (error) {
    if (error instanceof ApiError) return withHeaders(error.response, CORS)
    throw error
  }
  const headers = { ...CORS, ...rateHeaders }
  if (!actor.scopes.has(matched.route.scope)) return withHeaders(unauthorizedPermission(), headers)

  const ctx: ApiContext = { sb, store: sb.store, req, path: matched.params, params, actor, now: sb.now() }
  try {
    const response = await matched.route.handle(ctx)
    return withHeaders(req.method === 'HEAD' ? { ...response, payload: undefined } : response, headers)
  } catch (error) {
    if (error instanceof ApiError) return withHeaders(error.response, headers)
    const message = error instanceof Error ? error.message : String(error)
    return withHeaders(textResponse(500, `Internal sandbox error: ${message}`), headers)
  }
}
