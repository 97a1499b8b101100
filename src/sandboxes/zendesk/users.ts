import { forbidden, missingParameter, recordNotFound, ValidationErrors } from './errors.ts'
import { isRecord, jsonResponse, type SandboxResponse } from './http.ts'
import { ROLES, type Account, type Role, type User } from './model.ts'
import { paginate } from './pagination.ts'
import { anonymousUserJson, userJson } from './presenters.ts'
import type { AnonymousContext, ApiContext, ApiRoute } from './router.ts'
import type { NewUser } from './state.ts'
import { normalizeTags } from './ticket-input.ts'

/**
 * Users API (users.yml): me, list, create (201), show, update (200); and show_many and search, which
 * users.yml leaves out but real clients call (node-zendesk's `users.showMany` and `users.search`).
 */

const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+$/

function me(ctx: ApiContext): SandboxResponse {
  return jsonResponse(200, { user: userJson(ctx.user, ctx.base) })
}

/** users.yml: `/users/me` is "Allowed For: Anonymous users". */
function meAnonymous(_ctx: AnonymousContext): SandboxResponse {
  return jsonResponse(200, { user: anonymousUserJson() })
}

function listUsers(ctx: ApiContext): SandboxResponse {
  const { query } = ctx.req
  const roles = [...query.getAll('role'), ...query.getAll('role[]')]
  const externalId = query.get('external_id')
  const users = [...ctx.account.users.values()].filter(
    (u) =>
      (roles.length === 0 || roles.includes(u.role)) && (externalId === null || u.externalId === externalId),
  )
  return usersPage(ctx, users, query.get('sort_order') === 'desc')
}

/** One page of users, by id, as the user list pages them (cursor or offset). */
function usersPage(ctx: ApiContext, users: User[], descending: boolean): SandboxResponse {
  const page = paginate(ctx.req, users, { key: (u) => [u.id], descending })
  if (!page.ok) return page.response
  return jsonResponse(200, { users: page.items.map((u) => userJson(u, ctx.base)), ...page.fields })
}

/**
 * Zendesk documents "up to 100" ids or external ids, comma-separated, and says nothing of more. The
 * sandbox serves the first 100, so a client that sends more gets fewer users back, not an error.
 * Unknown ids are left out, as with every show_many; users come back in id order.
 */
const SHOW_MANY_LIMIT = 100

function showMany(ctx: ApiContext): SandboxResponse {
  const { query } = ctx.req
  const list = (name: string) =>
    (query.get(name) ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean)
      .slice(0, SHOW_MANY_LIMIT)
  const ids = new Set(list('ids').map(Number))
  const externalIds = new Set(list('external_ids'))
  if (ids.size === 0 && externalIds.size === 0) return missingParameter('ids')
  const users = [...ctx.account.users.values()]
    .filter((u) => ids.has(u.id) || (u.externalId !== null && externalIds.has(u.externalId)))
    .sort((a, b) => a.id - b.id)
  return jsonResponse(200, { users: users.map((u) => userJson(u, ctx.base)) })
}

/**
 * `query` matches a user's name, email, phone or external id, case-insensitively, anywhere in the
 * text (Zendesk's user search is looser still; this is the part clients rely on). `external_id`
 * matches exactly. Paginated like the user list.
 */
function searchUsers(ctx: ApiContext): SandboxResponse {
  const { query } = ctx.req
  const text = query.get('query')?.trim().toLowerCase()
  const externalId = query.get('external_id')
  if (!text && externalId === null) return missingParameter('query')
  const matches = (u: User) =>
    [u.name, u.email, u.phone, u.externalId].some(
      (field) => typeof field === 'string' && field.toLowerCase().includes(text!),
    )
  const users = [...ctx.account.users.values()].filter(
    (u) => (externalId === null || u.externalId === externalId) && (!text || matches(u)),
  )
  return usersPage(ctx, users, false)
}

function findUser(ctx: ApiContext): User | undefined {
  return ctx.account.users.get(Number(ctx.params.id))
}

function show(ctx: ApiContext): SandboxResponse {
  const user = findUser(ctx)
  return user ? jsonResponse(200, { user: userJson(user, ctx.base) }) : recordNotFound()
}

type UserChanges = Partial<NewUser>

/** Validates `user` fields for create (`existing` undefined) or update. */
function parseUserFields(
  account: Account,
  input: Record<string, unknown>,
  existing: User | undefined,
  errors: ValidationErrors,
): UserChanges {
  const changes: UserChanges = {}
  if (existing === undefined || 'name' in input) {
    const name = typeof input.name === 'string' ? input.name.trim() : ''
    // Wording captured in node-zendesk #3.
    if (!name) errors.add('name', 'Name: is too short (minimum is 1 characters)', 'TooShort')
    else changes.name = name
  }
  if ('email' in input && input.email !== null && input.email !== undefined) {
    const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : ''
    const owner = [...account.users.values()].find((u) => u.email === email)
    if (!EMAIL_PATTERN.test(email))
      errors.add('email', `Email: ${email} is not properly formatted`, 'InvalidFormat')
    // Wording captured in cloudbees zendesk-java-client #91.
    else if (owner && owner.id !== existing?.id)
      errors.add('email', `Email: ${email} is already being used by another user`, 'DuplicateValue')
    else changes.email = email
  }
  if ('role' in input) {
    if (typeof input.role === 'string' && (ROLES as readonly string[]).includes(input.role))
      changes.role = input.role as Role
    else errors.add('role', `Role: ${String(input.role)} is not valid`, 'InvalidValue')
  }
  if ('organization_id' in input) {
    const id = input.organization_id
    if (id === null) changes.organizationId = null
    else if (typeof id === 'number' && account.organizations.has(id)) changes.organizationId = id
    else errors.add('organization_id', 'Organization: is invalid', 'InvalidValue')
  }
  const text = (key: string) => (typeof input[key] === 'string' ? (input[key] as string) : undefined)
  if (text('phone') !== undefined) changes.phone = text('phone')
  if ('external_id' in input)
    changes.externalId = input.external_id === null ? null : String(input.external_id)
  if (text('time_zone') !== undefined) changes.timeZone = text('time_zone')
  if (text('locale') !== undefined) changes.locale = text('locale')
  if (text('notes') !== undefined) changes.notes = text('notes')
  if (text('details') !== undefined) changes.details = text('details')
  if (text('alias') !== undefined) changes.alias = text('alias')
  if (text('signature') !== undefined) changes.signature = text('signature')
  if (typeof input.verified === 'boolean') changes.verified = input.verified
  const tags = normalizeTags(input.tags)
  if (tags !== undefined) changes.tags = tags
  if (isRecord(input.user_fields)) changes.userFields = { ...input.user_fields }
  return changes
}

function userRoot(ctx: ApiContext): Record<string, unknown> | undefined {
  return isRecord(ctx.body) && isRecord(ctx.body.user) ? ctx.body.user : undefined
}

/** Agents manage end users; only admins create or promote agents and admins. */
function create(ctx: ApiContext): SandboxResponse {
  const input = userRoot(ctx)
  if (!input) return missingParameter('user')
  const errors = new ValidationErrors()
  const fields = parseUserFields(ctx.account, input, undefined, errors)
  if (!errors.empty) return errors.response()
  const role = fields.role ?? 'end-user'
  if (role !== 'end-user' && ctx.user.role !== 'admin') return forbidden()
  const user = ctx.store.addUser(
    ctx.account,
    { ...fields, name: fields.name as string, email: fields.email ?? '', role },
    ctx.now,
  )
  return jsonResponse(201, { user: userJson(user, ctx.base) })
}

function update(ctx: ApiContext): SandboxResponse {
  const user = findUser(ctx)
  if (!user) return recordNotFound()
  const input = userRoot(ctx)
  if (!input) return missingParameter('user')
  if (ctx.user.role !== 'admin' && user.role !== 'end-user' && user.id !== ctx.user.id) return forbidden()
  const errors = new ValidationErrors()
  const fields = parseUserFields(ctx.account, input, user, errors)
  if (!errors.empty) return errors.response()
  if (fields.role !== undefined && fields.role !== user.role && ctx.user.role !== 'admin') return forbidden()
  Object.assign(user, Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)))
  user.updatedAt = ctx.now
  return jsonResponse(200, { user: userJson(user, ctx.base) })
}

export const userRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/api/v2/users/me',
    access: 'any-user',
    scope: null,
    handle: me,
    anonymous: meAnonymous,
  },
  { method: 'GET', path: '/api/v2/users', access: 'agent', scope: 'users', handle: listUsers },
  { method: 'POST', path: '/api/v2/users', access: 'agent', scope: 'users', handle: create },
  { method: 'GET', path: '/api/v2/users/show_many', access: 'agent', scope: 'users', handle: showMany },
  { method: 'GET', path: '/api/v2/users/search', access: 'agent', scope: 'users', handle: searchUsers },
  { method: 'GET', path: '/api/v2/users/:id', access: 'agent', scope: 'users', handle: show },
  { method: 'PUT', path: '/api/v2/users/:id', access: 'agent', scope: 'users', handle: update },
]
