import { forbidden, notFound } from './errors.ts'
import { jsonResponse } from './http.ts'
import type { Team } from './model.ts'
import { domainJson, memberJson, teamJson, userJson } from './presenters.ts'
import type { ApiContext, ApiRoute } from './router.ts'
import { guarded, queryInt } from './validate.ts'

const me = (ctx: ApiContext) => jsonResponse(200, { user: userJson(ctx.user) })

/** Teams the token can see: its own team for a team token, every membership for a personal one. */
function visibleTeams(ctx: ApiContext): Team[] {
  if (ctx.token.teamId)
    return [ctx.store.teams.get(ctx.token.teamId)].filter((t): t is Team => t !== undefined)
  return ctx.store.teamsOf(ctx.user.id)
}

const listTeams = guarded((ctx: ApiContext) => {
  const limit = queryInt(ctx.req.query, 'limit', { min: 1, max: 100 }) ?? 20
  const until = queryInt(ctx.req.query, 'until')
  const since = queryInt(ctx.req.query, 'since')
  const teams = visibleTeams(ctx)
    .filter(
      (t) => (until === undefined || t.createdAt < until) && (since === undefined || t.createdAt > since),
    )
    .sort((a, b) => b.createdAt - a.createdAt)
  const page = teams.slice(0, limit)
  const last = page[page.length - 1]
  return jsonResponse(200, {
    teams: page.map((t) => teamJson(t, ctx.user.id)),
    pagination: {
      count: page.length,
      next: teams.length > page.length && last ? last.createdAt : null,
      prev: page[0]?.createdAt ?? null,
    },
  })
})

/** A team named in the path: outside the token's reach is 403, as for `?teamId=`. */
function pathTeam(ctx: ApiContext): Team | undefined {
  const team = ctx.store.team(ctx.params.teamId as string)
  if (!team || !visibleTeams(ctx).includes(team)) return undefined
  return team
}

const showTeam = (ctx: ApiContext) => {
  const team = pathTeam(ctx)
  return team ? jsonResponse(200, teamJson(team, ctx.user.id)) : forbidden()
}

/** `{members, pagination: {hasNext, count, next, prev}}` (V-OAS `/v3/teams/{teamId}/members`). */
const members = guarded((ctx: ApiContext) => {
  const team = pathTeam(ctx)
  if (!team) return forbidden()
  const limit = queryInt(ctx.req.query, 'limit', { min: 1, max: 100 }) ?? 20
  const until = queryInt(ctx.req.query, 'until')
  const role = ctx.req.query.get('role')?.toUpperCase()
  const all = team.members
    .filter((m) => (!role || m.role === role) && (until === undefined || m.createdAt < until))
    .sort((a, b) => b.createdAt - a.createdAt)
  const page = all.slice(0, limit)
  const last = page[page.length - 1]
  const hasNext = all.length > page.length
  return jsonResponse(200, {
    members: page.map((m) => memberJson(ctx.store, team, m.uid)).filter(Boolean),
    pagination: {
      hasNext,
      count: page.length,
      next: hasNext && last ? last.createdAt : null,
      prev: page[0]?.createdAt ?? null,
    },
  })
})

const listDomains = guarded((ctx: ApiContext) => {
  const q = ctx.req.query
  const limit = queryInt(q, 'limit', { min: 1, max: 100 }) ?? 20
  const until = queryInt(q, 'until')
  const since = queryInt(q, 'since')
  const all = [...ctx.store.domains.values()]
    .filter((d) => d.ownerId === ctx.ownerId)
    .filter(
      (d) => (until === undefined || d.createdAt < until) && (since === undefined || d.createdAt > since),
    )
    .sort((a, b) => b.createdAt - a.createdAt || a.name.localeCompare(b.name))
  const page = all.slice(0, limit)
  const last = page[page.length - 1]
  return jsonResponse(200, {
    domains: page.map((d) => domainJson(ctx.store, d)),
    pagination: {
      count: page.length,
      next: all.length > page.length && last ? last.createdAt : null,
      prev: page[0]?.createdAt ?? null,
    },
  })
})

const showDomain = (ctx: ApiContext) => {
  const domain = ctx.store.domains.get((ctx.params.domain as string).toLowerCase())
  if (!domain || domain.ownerId !== ctx.ownerId)
    return notFound(`The domain "${ctx.params.domain}" was not found`)
  return jsonResponse(200, { domain: domainJson(ctx.store, domain, true) })
}

export const accountRoutes: ApiRoute[] = [
  { method: 'GET', path: '/v2/user', scoped: false, handle: me },
  { method: 'GET', path: '/v2/teams', scoped: false, handle: listTeams },
  { method: 'GET', path: '/v2/teams/{teamId}', scoped: false, handle: showTeam },
  // The brief names /v2; the OAS has /v3. Both are served.
  { method: 'GET', path: '/v2/teams/{teamId}/members', scoped: false, handle: members },
  { method: 'GET', path: '/v3/teams/{teamId}/members', scoped: false, handle: members },
  { method: 'GET', path: '/v5/domains', scoped: true, handle: listDomains },
  { method: 'GET', path: '/v5/domains/{domain}', scoped: true, handle: showDomain },
]
