import { createApp, createMember } from '../accounts.ts'
import { jsonResponse, emptyResponse } from '../http.ts'
import type { Board, Label, List, Member } from '../model.ts'
import { validOriginPattern } from '../origins.ts'
import { POS_STEP } from '../pos.ts'
import {
  appJson,
  boardJson,
  labelJson,
  LABEL_COLORS,
  listJson,
  memberMiniJson,
  webhookJson,
} from '../presenters.ts'
import { API_KEY, shortLink } from '../ids.ts'
import { isoOrNull } from '../time.ts'
import { mintToken, parseExpiration, parseScopes } from '../tokens.ts'
import {
  badRequest,
  findMember,
  notFound,
  problem,
  type ControlContext,
  type ControlHandler,
} from './common.ts'

/** Control routes that shape the world: members, apps, boards, tokens. */

const controlMemberJson = (member: Member) => ({
  ...memberMiniJson(member),
  email: member.email,
  initials: member.initials,
})

export const listMembers: ControlHandler = (ctx) =>
  jsonResponse(200, { members: [...ctx.sb.store.members.values()].map(controlMemberJson) })

/** `{username, fullName, email, password?}`; without a password the member cannot use the HTML pages. */
export const addMember: ControlHandler = (ctx) => {
  const { username, fullName, email, password } = ctx.body
  if (typeof username !== 'string' || typeof fullName !== 'string' || typeof email !== 'string') {
    return badRequest('username, fullName and email are required strings')
  }
  if (password !== undefined && password !== null && typeof password !== 'string')
    return badRequest('password must be a string')
  const created = createMember(ctx.sb, {
    username,
    fullName,
    email,
    password: (password as string | undefined) ?? null,
  })
  if (!created.ok)
    return created.conflict ? problem(409, 'conflict', created.problem) : badRequest(created.problem)
  return jsonResponse(201, { member: controlMemberJson(created.value) })
}

export const listApps: ControlHandler = (ctx) =>
  jsonResponse(200, { apps: [...ctx.sb.store.apps.values()].map((a) => appJson(a, ctx.sb.store)) })

/** `{name, owner?, allowed_origins?, key?, secret?}` → `{key, secret, ...}`. */
export const addApp: ControlHandler = (ctx) => {
  const { name, owner, allowed_origins: origins, key, secret } = ctx.body
  if (typeof name !== 'string' || !name.trim()) return badRequest('name is required')
  const member = owner === undefined ? null : findMember(ctx, owner)
  if (member === undefined) return badRequest('owner does not name a member')
  if (
    origins !== undefined &&
    !(Array.isArray(origins) && origins.every((o) => typeof o === 'string' && validOriginPattern(o)))
  ) {
    return badRequest(
      'allowed_origins must be an array of origins such as "https://app.example" or "http://localhost:*"',
    )
  }
  if (key !== undefined && (typeof key !== 'string' || !API_KEY.test(key)))
    return badRequest('key must be 32 lowercase hex characters')
  if (secret !== undefined && (typeof secret !== 'string' || !/^[0-9a-f]{64}$/.test(secret)))
    return badRequest('secret must be 64 lowercase hex characters')
  if (typeof key === 'string' && ctx.sb.store.apps.has(key))
    return problem(409, 'conflict', 'an app with that key exists')
  const app = createApp(ctx.sb, {
    name: name.trim(),
    owner: member,
    allowedOrigins: origins as string[] | undefined,
    key: key as string | undefined,
    secret: secret as string | undefined,
  })
  return jsonResponse(201, appJson(app, ctx.sb.store))
}

function controlBoardJson(ctx: ControlContext, board: Board) {
  const { store } = ctx.sb
  return {
    ...boardJson(board, store, { memberships: true }),
    lists: store.listsOf(board.id).map(listJson),
    labels: store.labelsOf(board.id).map((l) => labelJson(l, store)),
    members: [...board.memberships.keys()]
      .map((id) => store.members.get(id))
      .filter((m): m is Member => m !== undefined)
      .map(memberMiniJson),
  }
}

export const listBoards: ControlHandler = (ctx) =>
  jsonResponse(200, { boards: [...ctx.sb.store.boards.values()].map((b) => controlBoardJson(ctx, b)) })

/**
 * `{name, owner, members?: [member], lists?: [name] (default To Do, Doing, Done),
 * labels?: [{name, color}]}`. Made silently: no actions, no webhooks.
 */
export const addBoard: ControlHandler = (ctx) => {
  const { name, owner, members = [], lists = ['To Do', 'Doing', 'Done'], labels = [] } = ctx.body
  if (typeof name !== 'string' || !name.trim()) return badRequest('name is required')
  const admin = findMember(ctx, owner)
  if (!admin) return badRequest('owner must name a member')
  if (!Array.isArray(members)) return badRequest('members must be an array')
  const others = members.map((m) => findMember(ctx, m))
  if (others.some((m) => m === undefined)) return badRequest('members must name members')
  if (!Array.isArray(lists) || !lists.every((l) => typeof l === 'string' && l.trim()))
    return badRequest('lists must be an array of names')
  const labelSpecs = Array.isArray(labels) ? labels : null
  if (
    !labelSpecs ||
    !labelSpecs.every(
      (l) => typeof l === 'object' && l !== null && (l.color === null || LABEL_COLORS.includes(l.color)),
    )
  ) {
    return badRequest('labels must be an array of {name, color} with a Trello label color or null')
  }
  const { sb } = ctx
  let link = shortLink()
  while (sb.store.boardByRef(link) || sb.store.cardByRef(link)) link = shortLink()
  const board: Board = {
    id: sb.newId(),
    name: name.trim(),
    desc: '',
    closed: false,
    shortLink: link,
    idMemberCreator: admin.id,
    memberships: new Map([[admin.id, { id: sb.newId(), memberType: 'admin' as const }]]),
    permissionLevel: 'private',
    nextIdShort: 1,
    dateLastActivity: sb.now(),
    createdAt: sb.now(),
  }
  for (const member of others as Member[])
    if (!board.memberships.has(member.id))
      board.memberships.set(member.id, { id: sb.newId(), memberType: 'normal' })
  sb.store.boards.set(board.id, board)
  ;(lists as string[]).forEach((listName, i) => {
    const list: List = {
      id: sb.newId(),
      idBoard: board.id,
      name: listName.trim(),
      closed: false,
      pos: POS_STEP * (i + 1),
    }
    sb.store.lists.set(list.id, list)
  })
  for (const spec of labelSpecs as { name?: unknown; color: string | null }[]) {
    const label: Label = {
      id: sb.newId(),
      idBoard: board.id,
      name: typeof spec.name === 'string' ? spec.name : '',
      color: spec.color,
    }
    sb.store.labels.set(label.id, label)
  }
  return jsonResponse(201, { board: controlBoardJson(ctx, board) })
}

/**
 * `{member, key? (default: the seeded Switchyard app, else the only app), scope? ("read,write"
 * or an array; default read,write,account), expiration? (default never)}` → `{token, ...}`.
 */
export const addToken: ControlHandler = (ctx) => {
  const { sb } = ctx
  const member = findMember(ctx, ctx.body.member)
  if (!member) return badRequest('member must name a member (username, id or email)')
  const { key, scope, expiration } = ctx.body
  const apps = [...sb.store.apps.values()]
  const app =
    typeof key === 'string'
      ? sb.store.apps.get(key)
      : key === undefined
        ? (apps.find((a) => a.name === 'Switchyard') ?? (apps.length === 1 ? apps[0] : undefined))
        : undefined
  if (!app) return badRequest('key must name an app (POST /_control/apps creates one)')
  if (scope !== undefined && typeof scope !== 'string' && !Array.isArray(scope))
    return badRequest('scope must be a string or an array')
  const scopes = parseScopes(scope as string | string[] | undefined, ['read', 'write', 'account'])
  if (!scopes) return badRequest('scope may only hold read, write, account')
  const parsedExpiration = parseExpiration(expiration as string | undefined, 'never')
  if (!parsedExpiration || (expiration !== undefined && typeof expiration !== 'string'))
    return badRequest('expiration must be 1hour, 1day, 30days or never')
  const token = mintToken(sb, { app, member, scopes, expiration: parsedExpiration })
  return jsonResponse(201, {
    token: token.value,
    key: app.key,
    member: member.username,
    id_member: member.id,
    scopes: token.scopes,
    expiration: token.expiration,
    expires_at: isoOrNull(token.expiresAt),
  })
}

/** Revokes a token (its webhooks go with it). */
export const removeToken: ControlHandler = (ctx) =>
  ctx.sb.store.revokeToken(ctx.params[0] as string) ? emptyResponse(204) : notFound('no such token')

export const listWebhooks: ControlHandler = (ctx) =>
  jsonResponse(200, {
    webhooks: [...ctx.sb.store.webhooks.values()].map((w) => ({
      ...webhookJson(w),
      model_type: w.modelType,
      key: w.key,
    })),
  })
