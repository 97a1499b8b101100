import type { ApiContext } from '../context.ts'
import { fail, invalidId, invalidValue, modelNotFound, unauthorizedPermission } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { jsonResponse } from '../http.ts'
import { OBJECT_ID } from '../ids.ts'
import { canSee, memberFor } from '../lookup.ts'
import type { Board, Notification } from '../model.ts'
import { boardJson, listJson, memberJson, notificationJson } from '../presenters.ts'
import type { ApiRoute } from '../router.ts'
import { filterOpenClosed, MAX_LIMIT } from './shared.ts'

/** Members: `GET /1/members/{me|id|username}`, their boards and notifications. */

const DEFAULT_NOTIFICATIONS_LIMIT = 50

/** Any member's public profile is visible; their boards are filtered to the ones the caller may see. */
const visibleMember = (ctx: ApiContext) => memberFor(ctx, ctx.path.id as string)

function getMember(ctx: ApiContext) {
  const member = visibleMember(ctx)
  const json = memberJson(member, ctx.store, {
    idMember: ctx.actor.member.id,
    account: ctx.actor.scopes.has('account'),
  })
  return jsonResponse(200, pickFields(json, ctx.params.string('fields')))
}

/** `filter`: all (default), open, closed, members, public, starred (none starred here), organization. */
function memberBoards(ctx: ApiContext) {
  const member = visibleMember(ctx)
  const { params, store } = ctx
  const boards = store.boardsOf(member.id).filter((b) => canSee(ctx, b))
  const filter = params.string('filter') ?? 'all'
  const chosen = ((): Board[] => {
    switch (filter) {
      case 'all':
      case 'members':
        return boards
      case 'open':
      case 'closed':
        return filterOpenClosed(boards, filter, 'filter')
      case 'public':
        return boards.filter((b) => b.permissionLevel === 'public')
      case 'organization':
        return boards.filter((b) => b.permissionLevel === 'org')
      case 'starred':
        return []
      default:
        return fail(invalidValue('filter'))
    }
  })()
  const fields = params.string('fields')
  const lists = params.string('lists')
  return jsonResponse(
    200,
    chosen.map((board) => {
      const json = pickFields(boardJson(board, store), fields)
      if (lists !== undefined && lists !== 'none')
        json.lists = filterOpenClosed(store.listsOf(board.id), lists, 'lists').map(listJson)
      return json
    }),
  )
}

/**
 * Only the token's own member can read their notifications (sources: Trello objects, T-ARCH member.html):
 * `filter` (types, default all), `read_filter` (all|read|unread), `limit`, `page`, `before`,
 * `since` (notification ids), `fields`. Newest first.
 */
function notifications(ctx: ApiContext) {
  const member = memberFor(ctx, ctx.path.id as string)
  if (member.id !== ctx.actor.member.id) return fail(unauthorizedPermission())
  const { params, store } = ctx
  const types = params.string('filter')
  const wanted = types && types !== 'all' ? new Set(types.split(',').map((t) => t.trim())) : null
  const readFilter = params.string('read_filter') ?? 'all'
  if (!['all', 'read', 'unread'].includes(readFilter)) return fail(invalidValue('read_filter'))
  const limit = params.int('limit', DEFAULT_NOTIFICATIONS_LIMIT, 1, MAX_LIMIT)
  const page = params.int('page', 0, 0, 100)
  const before = params.string('before')
  const since = params.string('since')
  for (const [name, value] of [
    ['before', before],
    ['since', since],
  ] as const) {
    if (value !== undefined && value !== 'null' && !OBJECT_ID.test(value)) return fail(invalidValue(name))
  }
  const fields = params.string('fields')
  const matching = store.notifications
    .filter(
      (n: Notification) =>
        n.idMember === member.id &&
        (!wanted || wanted.has(n.type)) &&
        (readFilter === 'all' || (readFilter === 'unread') === n.unread) &&
        (!before || before === 'null' || n.id < before) &&
        (!since || since === 'null' || n.id > since),
    )
    .sort((a, b) => b.date - a.date || (a.id < b.id ? 1 : -1))
  return jsonResponse(
    200,
    matching
      .slice(page * limit, page * limit + limit)
      .map((n) => pickFields(notificationJson(n, store), fields)),
  )
}

/** `PUT /1/notifications/{id}` with `unread`: needs the `account` scope (sources: Trello authentication). */
function updateNotification(ctx: ApiContext) {
  const id = ctx.path.id as string
  if (!OBJECT_ID.test(id)) return fail(invalidId())
  const notification = ctx.store.notifications.find((n) => n.id === id)
  if (!notification) return fail(modelNotFound())
  if (notification.idMember !== ctx.actor.member.id) return fail(unauthorizedPermission())
  const unread = ctx.params.bool('unread')
  if (unread !== undefined) {
    notification.unread = unread
    notification.dateRead = unread ? null : ctx.now
  }
  return jsonResponse(200, notificationJson(notification, ctx.store))
}

function markAllRead(ctx: ApiContext) {
  for (const n of ctx.store.notifications) {
    if (n.idMember === ctx.actor.member.id && n.unread) {
      n.unread = false
      n.dateRead = ctx.now
    }
  }
  return jsonResponse(200, [])
}

export const memberRoutes: ApiRoute[] = [
  { method: 'GET', path: '/1/members/{id}', scope: 'read', handle: getMember },
  { method: 'GET', path: '/1/members/{id}/boards', scope: 'read', handle: memberBoards },
  { method: 'GET', path: '/1/members/{id}/notifications', scope: 'read', handle: notifications },
  { method: 'PUT', path: '/1/notifications/{id}', scope: 'account', handle: updateNotification },
  { method: 'POST', path: '/1/notifications/all/read', scope: 'account', handle: markAllRead },
]
