import { recordAction } from '../actions.ts'
import type { ApiContext } from '../context.ts'
import { fail, invalidValue } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { jsonResponse } from '../http.ts'
import { OBJECT_ID } from '../ids.ts'
import { canWrite, listFor } from '../lookup.ts'
import type { Board, List } from '../model.ts'
import { resolvePos } from '../pos.ts'
import { boardJson, boardStub, listJson } from '../presenters.ts'
import type { ApiRoute } from '../router.ts'
import { cardView, filterCards, text } from './shared.ts'

/** Lists: `GET|PUT /1/lists/{id}`, `POST /1/lists`, `GET /1/lists/{id}/cards`. */

function getList(ctx: ApiContext) {
  const list = listFor(ctx, ctx.path.id as string)
  const { params, store } = ctx
  const json = pickFields(listJson(list), params.string('fields'))
  const cards = params.string('cards')
  if (cards !== undefined && cards !== 'none')
    json.cards = filterCards(ctx, store.cardsOfList(list.id), cards, 'cards').map((c) =>
      cardView(ctx, c, 'card_fields', 'card_'),
    )
  if (params.bool('board') === true) {
    const board = store.boards.get(list.idBoard)
    if (board) json.board = pickFields(boardJson(board, store), params.string('board_fields'))
  }
  return jsonResponse(200, json)
}

/** New lists go to the bottom unless `pos` says otherwise [UNV default]. */
function createList(ctx: ApiContext) {
  const { params, store } = ctx
  const name = text(ctx, 'name', { required: true }) as string
  const idBoard = params.string('idBoard')
  const board = idBoard && OBJECT_ID.test(idBoard) ? store.boards.get(idBoard) : undefined
  if (!board || !canWrite(ctx, board)) return fail(invalidValue('idBoard'))
  const pos = resolvePos(params.raw('pos'), store.listsOf(board.id))
  if (pos === null) return fail(invalidValue('pos'))
  const list: List = {
    id: ctx.sb.newId(),
    idBoard: board.id,
    name,
    closed: params.bool('closed') ?? false,
    pos,
  }
  store.lists.set(list.id, list)
  // [CAP createList shape, sources: Trello actions and webhooks]
  recordAction(ctx.sb, ctx.actor, {
    type: 'createList',
    data: { list: { id: list.id, name: list.name }, board: boardStub(board) },
    translationKey: 'action_added_list_to_board',
  })
  return jsonResponse(200, listJson(list))
}

/** updateList with `data.old` [CAP ChangeListName.json]. */
function updateList(ctx: ApiContext) {
  const list = listFor(ctx, ctx.path.id as string)
  const { params, store } = ctx
  const name = params.has('name') ? text(ctx, 'name') : undefined
  const closed = params.bool('closed')
  const pos = params.has('pos')
    ? resolvePos(
        params.raw('pos'),
        store.listsOf(list.idBoard).filter((l) => l.id !== list.id),
      )
    : undefined
  if (pos === null) return fail(invalidValue('pos'))
  const old: Record<string, unknown> = {}
  const now: Record<string, unknown> = {}
  if (name !== undefined && name !== list.name) [old.name, now.name, list.name] = [list.name, name, name]
  if (closed !== undefined && closed !== list.closed)
    [old.closed, now.closed, list.closed] = [list.closed, closed, closed]
  if (pos !== undefined && pos !== list.pos) [old.pos, now.pos, list.pos] = [list.pos, pos, pos]
  if (Object.keys(old).length > 0) {
    const key =
      'name' in old
        ? 'action_renamed_list'
        : 'closed' in old
          ? list.closed
            ? 'action_archived_list'
            : 'action_sent_list_to_board'
          : (now.pos as number) < (old.pos as number)
            ? 'action_moved_list_left'
            : 'action_moved_list_right'
    recordAction(ctx.sb, ctx.actor, {
      type: 'updateList',
      data: {
        list: { ...now, id: list.id, name: list.name },
        old,
        board: boardStub(store.boards.get(list.idBoard) as Board),
      },
      translationKey: key,
    })
  }
  return jsonResponse(200, listJson(list))
}

export const listRoutes: ApiRoute[] = [
  { method: 'GET', path: '/1/lists/{id}', scope: 'read', handle: getList },
  { method: 'PUT', path: '/1/lists/{id}', scope: 'write', handle: updateList },
  { method: 'POST', path: '/1/lists', scope: 'write', handle: createList },
  {
    method: 'GET',
    path: '/1/lists/{id}/cards',
    scope: 'read',
    handle: (ctx) => {
      const list = listFor(ctx, ctx.path.id as string)
      return jsonResponse(
        200,
        filterCards(ctx, ctx.store.cardsOfList(list.id), ctx.params.string('filter'), 'filter').map((c) =>
          cardView(ctx, c, 'fields'),
        ),
      )
    },
  },
]
