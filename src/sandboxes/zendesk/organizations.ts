import { recordNotFound } from './errors.ts'
import { jsonResponse, type SandboxResponse } from './http.ts'
import { paginate } from './pagination.ts'
import { organizationJson } from './presenters.ts'
import type { ApiContext, ApiRoute } from './router.ts'

/** Organizations API (organizations.yml): list `{organizations, count, next_page, previous_page}` and show. */

function listOrganizations(ctx: ApiContext): SandboxResponse {
  const organizations = [...ctx.account.organizations.values()]
  const page = paginate(ctx.req, organizations, {
    key: (o) => [o.id],
    descending: ctx.req.query.get('sort_order') === 'desc',
  })
  if (!page.ok) return page.response
  return jsonResponse(200, {
    organizations: page.items.map((o) => organizationJson(o, ctx.base)),
    ...page.fields,
  })
}

function show(ctx: ApiContext): SandboxResponse {
  const organization = ctx.account.organizations.get(Number(ctx.params.id))
  return organization
    ? jsonResponse(200, { organization: organizationJson(organization, ctx.base) })
    : recordNotFound()
}

export const organizationRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/api/v2/organizations',
    access: 'agent',
    scope: 'organizations',
    handle: listOrganizations,
  },
  { method: 'GET', path: '/api/v2/organizations/:id', access: 'agent', scope: 'organizations', handle: show },
]
