import { authenticate, roleAllows, scopeAllows } from './auth.ts'
import { commentRoutes } from './comments.ts'
import { couldNotAuthenticate, forbidden, invalidEndpoint, invalidToken, malformedJson } from './errors.ts'
import { parseBody, type IncomingRequest, type SandboxResponse } from './http.ts'
import type { Account, User } from './model.ts'
import { oauthTokenRoutes } from './oauth/token-routes.ts'
import { organizationRoutes } from './organizations.ts'
import { ApiRouter } from './router.ts'
import type { ZendeskSandbox } from './sandbox.ts'
import { searchRoutes } from './search/routes.ts'
import { ticketRoutes } from './tickets.ts'
import { uploadRoutes } from './uploads.ts'
import { deletedTicketRoutes } from './deleted-tickets.ts'
import { userRoutes } from './users.ts'
import { webhookRoutes } from './webhooks.ts'
import { invocationRoutes } from './events/invocations.ts'
import { requestRoutes } from './requests.ts'

const router = new ApiRouter([
  ...ticketRoutes,
  ...requestRoutes,
  ...deletedTicketRoutes,
  ...commentRoutes,
  ...userRoutes,
  ...organizationRoutes,
  ...searchRoutes,
  ...webhookRoutes,
  ...invocationRoutes,
  ...oauthTokenRoutes,
  ...uploadRoutes,
])

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH'])

/**
 * One `/api/v2/...` request on a known account, after rate limiting. Order: route (unknown →
 * 404 InvalidEndpoint), authentication (401 in Zendesk's two shapes), scope and role (403),
 * body (400 on malformed JSON), then the handler.
 */
export async function handleApiRequest(
  sandbox: ZendeskSandbox,
  account: Account,
  req: IncomingRequest,
  apiPath: string,
  base: string,
): Promise<SandboxResponse> {
  const found = router.match(req.method, apiPath)
  if (!found) return invalidEndpoint()
  const { route, params } = found
  const now = sandbox.now()
  const store = sandbox.store
  const auth = authenticate(store, account, req, now)

  const anonymous = route.anonymous
  // Probe-captured: /users/me answers the anonymous user both without credentials and with a
  // wrong password, but 401 for a wrong API token.
  if (
    anonymous &&
    ((auth.ok && auth.credential.kind === 'none') || (!auth.ok && auth.failure === 'password'))
  ) {
    return anonymous({ sandbox, store, account, req, params, base, now, body: undefined })
  }
  if (!auth.ok) return auth.failure === 'bearer' ? invalidToken() : couldNotAuthenticate()
  const credential = auth.credential
  if (credential.kind === 'none') return couldNotAuthenticate()
  if (credential.kind === 'oauth' && !scopeAllows(credential.token.scopes, route.scope, req.method))
    return forbidden()
  if (!roleAllows(credential.user.role, route.access)) return forbidden()

  let body: unknown
  if (METHODS_WITH_BODY.has(req.method) && !route.rawBody) {
    const parsed = parseBody(req)
    if (!parsed.ok) return malformedJson()
    body = parsed.value
  }
  return route.handle({
    sandbox,
    store,
    account,
    user: credential.user,
    credential,
    req,
    params,
    base,
    now,
    body,
  })
}

/**
 * One API request as a signed-in person in Zendesk's agent UI (the control API's act): no
 * credentials, rate limit or faults, the person's role still applies, and writes come via `web`.
 */
export async function handleActAs(
  sandbox: ZendeskSandbox,
  account: Account,
  user: User,
  req: IncomingRequest,
  apiPath: string,
  base: string,
): Promise<SandboxResponse> {
  const found = router.match(req.method, apiPath)
  if (!found) return invalidEndpoint()
  if (!roleAllows(user.role, found.route.access)) return forbidden()
  let body: unknown
  if (METHODS_WITH_BODY.has(req.method) && !found.route.rawBody) {
    const parsed = parseBody(req)
    if (!parsed.ok) return malformedJson()
    body = parsed.value
  }
  const via = { channel: 'web', source: { from: {}, to: {}, rel: null } }
  return found.route.handle({
    sandbox,
    store: sandbox.store,
    account,
    user,
    credential: { kind: 'password', user },
    req,
    params: found.params,
    base,
    now: sandbox.now(),
    body,
    via,
  })
}
