import type { ApiContext } from '../context.ts'
import { fail, invalidId, modelNotFound, unauthorizedPermission } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { jsonResponse } from '../http.ts'
import { OBJECT_ID } from '../ids.ts'
import { canSee, memberFor } from '../lookup.ts'
import type { Action } from '../model.ts'
import { actionJson } from '../presenters.ts'
import type { ApiRoute } from '../router.ts'
import { actionList, TOP_LEVEL_ACTIONS } from './shared.ts'

/** An action is visible when its board is, or, without a board, to the member who made it. */
function visible(ctx: ApiContext, action: Action): boolean {
  const boardId = (action.data.board as { id?: string } | undefined)?.id
  const board = boardId ? ctx.store.boards.get(boardId) : undefined
  return board ? canSee(ctx, board) : action.idMemberCreator === ctx.actor.member.id
}

/**
 * `GET /1/actions/{id}` (sources: Trello actions and webhooks, T-ARCH action.html): one action, as
 * in action lists, with `fields` and `memberCreator`; 401 like other models when it is not visible.
 */
function getAction(ctx: ApiContext) {
  const id = ctx.path.id as string
  if (!OBJECT_ID.test(id)) return fail(invalidId())
  const action = ctx.store.actions.find((a) => a.id === id)
  if (!action) return fail(modelNotFound())
  if (!visible(ctx, action)) return fail(unauthorizedPermission())
  const json = actionJson(action, ctx.store, { memberCreator: ctx.params.bool('memberCreator') !== false })
  return jsonResponse(200, pickFields(json, ctx.params.string('fields')))
}

/**
 * `GET /1/members/{id}/actions` (sources: Trello actions and webhooks, T-ARCH member.html): what the
 * member did or had done to them, on boards the caller can see; an action list like a board's
 * (`filter`, default all, `limit`, `page`, `before`, `since`, `fields`).
 */
function memberActions(ctx: ApiContext) {
  const member = memberFor(ctx, ctx.path.id as string)
  const actions = ctx.store.actions.filter(
    (a) => (a.idMemberCreator === member.id || a.idMember === member.id) && visible(ctx, a),
  )
  return jsonResponse(200, actionList(ctx, actions, TOP_LEVEL_ACTIONS('all')))
}

export const actionRoutes: ApiRoute[] = [
  { method: 'GET', path: '/1/actions/{id}', scope: 'read', handle: getAction },
  { method: 'GET', path: '/1/members/{id}/actions', scope: 'read', handle: memberActions },
]
