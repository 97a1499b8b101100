import type { ApiContext } from '../context.ts'
import { fail, invalidId, modelNotFound, unauthorizedPermission } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { jsonResponse } from '../http.ts'
import { OBJECT_ID } from '../ids.ts'
import { canSee } from '../lookup.ts'
import { actionJson } from '../presenters.ts'
import type { ApiRoute } from '../router.ts'

/**
 * `GET /1/actions/{id}` (sources: Trello actions and webhooks, T-ARCH action.html): one action, as
 * in action lists, with `fields` and `memberCreator`. Visible when its board is, or to the member
 * who made it (a board-less action such as one on a member); otherwise 401 like other models.
 */
function getAction(ctx: ApiContext) {
  const id = ctx.path.id as string
  if (!OBJECT_ID.test(id)) return fail(invalidId())
  const action = ctx.store.actions.find((a) => a.id === id)
  if (!action) return fail(modelNotFound())
  const boardId = (action.data.board as { id?: string } | undefined)?.id
  const board = boardId ? ctx.store.boards.get(boardId) : undefined
  const visible = board ? canSee(ctx, board) : action.idMemberCreator === ctx.actor.member.id
  if (!visible) return fail(unauthorizedPermission())
  const json = actionJson(action, ctx.store, { memberCreator: ctx.params.bool('memberCreator') !== false })
  return jsonResponse(200, pickFields(json, ctx.params.string('fields')))
}

export const actionRoutes: ApiRoute[] = [{ method: 'GET', path: '/1/actions/{id}', scope: 'read', handle: getAction }]
