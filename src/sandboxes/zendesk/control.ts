import { parseScopes } from './auth.ts'
import {
  badRequest,
  notFound,
  problem,
  routeControl,
  type ControlInput,
  type ControlRoute,
} from '../kit/control.ts'
import { jsonResponse, type IncomingRequest, type SandboxResponse } from './http.ts'
import { randomApiToken } from './ids.ts'
import { PLANS, ROLES, type Account, type OAuthClient, type Plan, type Role } from './model.ts'
import { DEFAULT_REFRESH_EXPIRES_IN_S, mintTokens, tokenResponseBody } from './oauth/mint.ts'
import { organizationJson, userJson } from './presenters.ts'
import { accountLimit } from './rate-limit.ts'
import type { ZendeskSandbox } from './sandbox.ts'
import { RESERVED_SUBDOMAINS, SUBDOMAIN_PATTERN } from './state.ts'
import { isoSeconds } from './time.ts'
import * as events from './events/control.ts'

/**
 * The sandbox-only control API at `{prefix}/_control/...` (JSON in, JSON out; see
 * docs/sandbox.md). No authentication: it exists for local scripts and tests.
 */

interface ControlContext extends ControlInput {
  sandbox: ZendeskSandbox
  /** `{origin}{prefix}`, to build account base URLs. */
  root: string
}

type ControlHandler = (ctx: ControlContext) => SandboxResponse

function withAccount(
  ctx: ControlContext,
  fn: (account: Account, base: string) => SandboxResponse,
): SandboxResponse {
  const subdomain = ctx.params[0] as string
  const account = ctx.sandbox.store.account(subdomain)
  return account ? fn(account, `${ctx.root}/${account.subdomain}`) : notFound(`no account ${subdomain}`)
}

function accountJson(ctx: ControlContext, account: Account): Record<string, unknown> {
  return {
    id: account.id,
    subdomain: account.subdomain,
    plan: account.plan,
    rate_limit_per_minute: accountLimit(account),
    url: `${ctx.root}/${account.subdomain}`,
    users: [...account.users.values()].map((u) => ({ id: u.id, name: u.name, email: u.email, role: u.role })),
    organizations: [...account.organizations.values()].map((o) => ({ id: o.id, name: o.name })),
    ticket_count: account.tickets.size,
  }
}

function parsePlan(raw: unknown): Plan | undefined | null {
  if (raw === undefined) return undefined
  return typeof raw === 'string' && (PLANS as string[]).includes(raw) ? (raw as Plan) : null
}

const createAccount: ControlHandler = (ctx) => {
  const subdomain = typeof ctx.body.subdomain === 'string' ? ctx.body.subdomain.toLowerCase() : ''
  if (!SUBDOMAIN_PATTERN.test(subdomain) || RESERVED_SUBDOMAINS.has(subdomain)) {
    return badRequest('subdomain must match ^[a-z0-9][a-z0-9-]*$ and not be reserved')
  }
  const plan = parsePlan(ctx.body.plan)
  if (plan === null) return badRequest(`plan must be one of ${PLANS.join(', ')}`)
  if (ctx.sandbox.store.account(subdomain)) return problem(409, 'conflict', `account ${subdomain} exists`)
  const account = ctx.sandbox.store.createAccount(subdomain, plan ?? 'enterprise', ctx.sandbox.now())
  return jsonResponse(201, { account: accountJson(ctx, account) })
}

const updateAccount: ControlHandler = (ctx) =>
  withAccount(ctx, (account) => {
    const plan = parsePlan(ctx.body.plan)
    if (plan === null) return badRequest(`plan must be one of ${PLANS.join(', ')}`)
    const limit = ctx.body.rate_limit_per_minute
    if (
      limit !== undefined &&
      limit !== null &&
      !(typeof limit === 'number' && Number.isInteger(limit) && limit > 0)
    ) {
      return badRequest('rate_limit_per_minute must be a positive integer or null')
    }
    if (plan) account.plan = plan
    if (limit !== undefined) account.rateLimitPerMinute = limit as number | null
    return jsonResponse(200, { account: accountJson(ctx, account) })
  })

const createUser: ControlHandler = (ctx) =>
  withAccount(ctx, (account, base) => {
    const { name, email, role, password, organization_id: organizationId } = ctx.body
    if (typeof name !== 'string' || !name.trim()) return badRequest('name is required')
    if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(email)) return badRequest('email is required')
    if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role))
      return badRequest(`role must be one of ${ROLES.join(', ')}`)
    if (password !== undefined && typeof password !== 'string') return badRequest('password must be a string')
    if (
      organizationId !== undefined &&
      !(typeof organizationId === 'number' && account.organizations.has(organizationId))
    ) {
      return badRequest('organization_id does not name an organization of this account')
    }
    if (ctx.sandbox.store.userByEmail(account, email))
      return problem(409, 'conflict', `${email} is already a user of ${account.subdomain}`)
    const user = ctx.sandbox.store.addUser(
      account,
      {
        name: name.trim(),
        email,
        role: role as Role,
        password: (password as string | undefined) ?? null,
        organizationId: (organizationId as number | undefined) ?? null,
      },
      ctx.sandbox.now(),
    )
    return jsonResponse(201, { user: userJson(user, base) })
  })

const createOrganization: ControlHandler = (ctx) =>
  withAccount(ctx, (account, base) => {
    const { name, domain_names: domains } = ctx.body
    if (typeof name !== 'string' || !name.trim()) return badRequest('name is required')
    const domainNames = Array.isArray(domains)
      ? domains.filter((d): d is string => typeof d === 'string')
      : []
    const organization = ctx.sandbox.store.addOrganization(
      account,
      { name: name.trim(), domainNames },
      ctx.sandbox.now(),
    )
    return jsonResponse(201, { organization: organizationJson(organization, base) })
  })

/** Mints an OAuth access token directly. Any positive `expires_in` is allowed, so tests can use short ones. */
const mintToken: ControlHandler = (ctx) =>
  withAccount(ctx, (account) => {
    const { email, user_id: userId, scopes: rawScopes, expires_in: expiresIn, client_id: clientId } = ctx.body
    const user =
      typeof userId === 'number'
        ? account.users.get(userId)
        : typeof email === 'string'
          ? ctx.sandbox.store.userByEmail(account, email)
          : undefined
    if (!user) return badRequest('give the email or user_id of a user of this account')
    if (rawScopes !== undefined && !Array.isArray(rawScopes))
      return badRequest('scopes must be an array of strings')
    if (
      expiresIn !== undefined &&
      !(typeof expiresIn === 'number' && Number.isInteger(expiresIn) && expiresIn > 0)
    ) {
      return badRequest('expires_in must be a positive integer number of seconds')
    }
    const scopes = rawScopes === undefined ? ['read', 'write'] : parseScopes(rawScopes)
    const minted = mintTokens(
      ctx.sandbox.store,
      {
        subdomain: account.subdomain,
        userId: user.id,
        clientId: typeof clientId === 'string' ? clientId : 'sandbox-control',
        scopes,
        expiresInS: (expiresIn as number | undefined) ?? null,
        refreshExpiresInS: DEFAULT_REFRESH_EXPIRES_IN_S,
      },
      ctx.sandbox.now(),
    )
    return jsonResponse(201, { ...tokenResponseBody(minted, DEFAULT_REFRESH_EXPIRES_IN_S), user_id: user.id })
  })

/** Revokes an access or refresh token of the account. */
const revokeToken: ControlHandler = (ctx) =>
  withAccount(ctx, (account) => {
    const value = ctx.params[1] as string
    const { store } = ctx.sandbox
    const access = store.accessTokens.get(value)
    const refresh = store.refreshTokens.get(value)
    const target =
      access?.subdomain === account.subdomain
        ? access
        : refresh?.subdomain === account.subdomain
          ? refresh
          : undefined
    if (!target) return notFound('no such token on this account')
    target.revoked = true
    return jsonResponse(200, { revoked: true })
  })

const createApiToken: ControlHandler = (ctx) =>
  withAccount(ctx, (account) => {
    const now = ctx.sandbox.now()
    const apiToken = {
      id: ctx.sandbox.store.nextId('apiToken'),
      token: randomApiToken(),
      description: typeof ctx.body.description === 'string' ? ctx.body.description : 'Sandbox API token',
      active: true,
      createdAt: now,
    }
    account.apiTokens.set(apiToken.token, apiToken)
    return jsonResponse(201, {
      api_token: {
        id: apiToken.id,
        token: apiToken.token,
        description: apiToken.description,
        active: true,
        created_at: isoSeconds(now),
      },
    })
  })

function clientJson(client: OAuthClient): Record<string, unknown> {
  return {
    identifier: client.identifier,
    name: client.name,
    kind: client.kind,
    redirect_uris:
      client.redirect.kind === 'exact'
        ? [...client.redirect.uris]
        : ['http://localhost:*', 'http://127.0.0.1:*'],
    subdomain: client.subdomain,
  }
}

const createClient: ControlHandler = (ctx) => {
  const { identifier, secret, redirect_uris: uris, kind = 'confidential', name, subdomain } = ctx.body
  if (typeof identifier !== 'string' || !identifier.trim()) return badRequest('identifier is required')
  if (kind !== 'confidential' && kind !== 'public') return badRequest('kind must be confidential or public')
  if (kind === 'confidential' && (typeof secret !== 'string' || !secret))
    return badRequest('a confidential client needs a secret')
  if (
    !Array.isArray(uris) ||
    uris.length === 0 ||
    !uris.every((u) => typeof u === 'string' && URL.canParse(u))
  ) {
    return badRequest('redirect_uris must be a non-empty array of absolute URLs')
  }
  if (
    subdomain !== undefined &&
    subdomain !== null &&
    (typeof subdomain !== 'string' || !ctx.sandbox.store.account(subdomain))
  ) {
    return badRequest('subdomain does not name an account')
  }
  if (ctx.sandbox.store.clients.has(identifier))
    return problem(409, 'conflict', `client ${identifier} exists`)
  const client = ctx.sandbox.store.addClient({
    identifier,
    name: typeof name === 'string' && name ? name : identifier,
    secret: kind === 'confidential' ? (secret as string) : null,
    kind,
    redirect: { kind: 'exact', uris: uris as string[] },
    subdomain: typeof subdomain === 'string' ? subdomain.toLowerCase() : null,
  })
  return jsonResponse(201, { client: clientJson(client) })
}

const SEGMENT = '([^/]+)'
const machinery = (ctx: ControlContext) => ctx.sandbox.control

const routes: ControlRoute<ControlContext>[] = [
  {
    method: 'GET',
    pattern: /^\/accounts$/,
    handle: (ctx) =>
      jsonResponse(200, {
        accounts: [...ctx.sandbox.store.accounts.values()].map((a) => accountJson(ctx, a)),
      }),
  },
  { method: 'POST', pattern: /^\/accounts$/, handle: createAccount },
  {
    method: 'GET',
    pattern: new RegExp(`^/accounts/${SEGMENT}$`),
    handle: (ctx) => withAccount(ctx, (a) => jsonResponse(200, { account: accountJson(ctx, a) })),
  },
  { method: 'PATCH', pattern: new RegExp(`^/accounts/${SEGMENT}$`), handle: updateAccount },
  { method: 'POST', pattern: new RegExp(`^/accounts/${SEGMENT}/users$`), handle: createUser },
  { method: 'POST', pattern: new RegExp(`^/accounts/${SEGMENT}/organizations$`), handle: createOrganization },
  { method: 'POST', pattern: new RegExp(`^/accounts/${SEGMENT}/tokens$`), handle: mintToken },
  {
    method: 'POST',
    pattern: new RegExp(`^/accounts/${SEGMENT}/tokens/${SEGMENT}/revoke$`),
    handle: revokeToken,
  },
  { method: 'POST', pattern: new RegExp(`^/accounts/${SEGMENT}/api_tokens$`), handle: createApiToken },
  {
    method: 'GET',
    pattern: /^\/oauth_clients$/,
    handle: (ctx) => jsonResponse(200, { clients: [...ctx.sandbox.store.clients.values()].map(clientJson) }),
  },
  { method: 'POST', pattern: /^\/oauth_clients$/, handle: createClient },
  { method: 'GET', pattern: /^\/faults$/, handle: (ctx) => machinery(ctx).listFaults() },
  { method: 'POST', pattern: /^\/faults$/, handle: (ctx) => machinery(ctx).addFault(ctx.body) },
  { method: 'DELETE', pattern: /^\/faults$/, handle: (ctx) => machinery(ctx).clearFaults() },
  {
    method: 'DELETE',
    pattern: new RegExp(`^/faults/${SEGMENT}$`),
    handle: (ctx) => machinery(ctx).removeFault(ctx.params[0] as string),
  },
  {
    method: 'GET',
    pattern: /^\/requests$/,
    handle: (ctx) => {
      const account = ctx.req.query.get('account')
      return machinery(ctx).listRequests(ctx.req.query, (e) => !account || e.account === account)
    },
  },
  { method: 'DELETE', pattern: /^\/requests$/, handle: (ctx) => machinery(ctx).clearRequests() },
  { method: 'GET', pattern: /^\/clock$/, handle: (ctx) => machinery(ctx).getClock() },
  { method: 'POST', pattern: /^\/clock$/, handle: (ctx) => machinery(ctx).moveClock(ctx.body) },
  { method: 'POST', pattern: new RegExp(`^/accounts/${SEGMENT}/act$`), handle: events.act },
  { method: 'GET', pattern: /^\/deliveries$/, handle: events.listDeliveries },
  { method: 'DELETE', pattern: /^\/deliveries$/, handle: events.clearDeliveries },
  { method: 'GET', pattern: new RegExp(`^/deliveries/${SEGMENT}$`), handle: events.getDelivery },
  { method: 'GET', pattern: /^\/delivery-settings$/, handle: events.getDeliverySettings },
  { method: 'PUT', pattern: /^\/delivery-settings$/, handle: events.putDeliverySettings },
  { method: 'GET', pattern: /^\/delivery-faults$/, handle: events.listDeliveryFaults },
  { method: 'POST', pattern: /^\/delivery-faults$/, handle: events.addDeliveryFault },
  { method: 'DELETE', pattern: /^\/delivery-faults$/, handle: events.clearDeliveryFaults },
  { method: 'POST', pattern: /^\/reset$/, handle: (ctx) => machinery(ctx).reset() },
]

export function handleControlRequest(
  sandbox: ZendeskSandbox,
  req: IncomingRequest,
  path: string,
  root: string,
): Promise<SandboxResponse> {
  return routeControl(routes, req, path, (input) => ({ ...input, sandbox, root }))
}
