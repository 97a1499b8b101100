import { PathRouter } from '../kit/router.ts'
import { badRequest, endpointNotFound, forbidden, methodUnknown } from './errors.ts'
import { header, parseBody, type IncomingRequest, type SandboxResponse } from './http.ts'
import type { Team, Token, User } from './model.ts'
import { rateLimited, rateLimitHeaders } from './rate-limit.ts'
import type { VercelSandbox } from './sandbox.ts'
import type { Store } from './store.ts'

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'

export interface ApiContext {
  sandbox: VercelSandbox
  store: Store
  req: IncomingRequest
  params: Record<string, string>
  now: number
  token: Token
  user: User
  /** Acting owner: the team (teamId/slug) or the user's personal account. */
  ownerId: string
  team: Team | null
  body: unknown
}

export interface ApiRoute {
  method: HttpMethod
  /** `{name}` matches one path segment. The version segment is part of the path. */
  path: string
  /** Team-scoped resource: resolves `teamId`/`slug` and enforces the token's scope. */
  scoped: boolean
  handle: (ctx: ApiContext) => SandboxResponse
}

export class ApiRouter extends PathRouter<ApiRoute> {
  constructor(routes: ApiRoute[]) {
    super(routes, { trailingSlash: true })
  }
}

export function bearerToken(req: IncomingRequest): string | undefined {
  const value = header(req, 'authorization')
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null
  return match?.[1]
}

/**
 * Scope rules (sources: Vercel, V-INTEG): an integration installed on a team must append
 * `?teamId=` (or `slug`) to every call. The sandbox answers 403 "Not authorized" when a team
 * token calls without it (that would be the personal account, which the installation does not
 * cover) or names another team. A personal token may act on any team its user is a member of,
 * as a personal access token can; an unknown team is also 403, not 404 (no team enumeration).
 */
export function resolveScope(
  store: Store,
  req: IncomingRequest,
  token: Token,
  user: User,
): { ownerId: string; team: Team | null } | SandboxResponse {
  const ref = req.query.get('teamId') || req.query.get('slug')
  if (!ref) {
    if (token.teamId) return forbidden()
    return { ownerId: user.id, team: null }
  }
  const team = store.team(ref)
  if (!team) return forbidden()
  if (token.teamId ? token.teamId !== team.id : !store.isMember(user.id, team)) return forbidden()
  if (!store.isMember(user.id, team)) return forbidden()
  return { ownerId: team.id, team }
}

export function handleApi(sandbox: VercelSandbox, router: ApiRouter, req: IncomingRequest): SandboxResponse {
  const store = sandbox.store
  const now = sandbox.now()
  const found = router.match(req.method, req.path)
  const routeKey = found ? `${found.route.method} ${found.route.path}` : 'unmatched'
  const tokenValue = bearerToken(req)
  const token = tokenValue ? store.tokens.get(tokenValue) : undefined
  const decision = sandbox.rateLimiter.take(
    token ? `token:${token.token}` : `ip:${req.remoteAddress}`,
    routeKey,
    now,
  )
  if (decision && !decision.allowed) return rateLimited(decision.limit, decision.resetMs, now)
  const response = dispatch()
  if (decision) Object.assign(response.headers, rateLimitHeaders(decision))
  return response

  function dispatch(): SandboxResponse {
    if (!found) {
      const allowed = router.allowedMethods(req.path)
      return allowed.length > 0 ? methodUnknown(allowed) : endpointNotFound()
    }
    const user = token ? store.users.get(token.userId) : undefined
    if (!token || !user) return forbidden()
    let scope: { ownerId: string; team: Team | null } = {
      ownerId: token.teamId ?? user.id,
      team: token.teamId ? (store.teams.get(token.teamId) ?? null) : null,
    }
    if (found.route.scoped) {
      const resolved = resolveScope(store, req, token, user)
      if ('status' in resolved) return resolved
      scope = resolved
    }
    let body: unknown
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE') {
      const parsed = parseBody(req)
      if (!parsed.ok) return badRequest(`Invalid JSON body: ${parsed.reason}`)
      body = parsed.value
    }
    return found.route.handle({
      sandbox,
      store,
      req,
      params: found.params,
      now,
      token,
      user,
      ownerId: scope.ownerId,
      team: scope.team,
      body,
    })
  }
}

/**
 * One API request as a person signed in to vercel.com's dashboard (the home page's deploy form):
 * the route's own handler, so the change is the API's, with no token to check or rate-limit. The
 * person acts for `team` (they must be a member) or their personal account. `body` is the JSON
 * body the dashboard would send.
 */
export function handleAsPerson(
  sandbox: VercelSandbox,
  router: ApiRouter,
  user: User,
  team: Team | null,
  req: IncomingRequest,
  body: unknown,
): SandboxResponse {
  const found = router.match(req.method, req.path)
  if (!found) return endpointNotFound()
  if (team && !sandbox.store.isMember(user.id, team)) return forbidden()
  const now = sandbox.now()
  return found.route.handle({
    sandbox,
    store: sandbox.store,
    req,
    params: found.params,
    now,
    // The dashboard's session stands in for a token: the person's own, for the chosen scope.
    token: { token: '', userId: user.id, teamId: team?.id ?? null, installationId: null, createdAt: now },
    user,
    ownerId: team?.id ?? user.id,
    team,
    body,
  })
}
