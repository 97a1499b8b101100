import { recordAction } from '../actions.ts'
import type { ApiContext } from '../context.ts'
import { fail, invalidValue } from '../errors.ts'
import { jsonResponse } from '../http.ts'
import { OBJECT_ID } from '../ids.ts'
import { canWrite, checklistFor } from '../lookup.ts'
import { NO_CHECK_ITEM_DETAILS, type Board, type CheckItem, type Checklist } from '../model.ts'
import { resolvePos } from '../pos.ts'
import { boardStub, cardStub, checkItemJson, checklistJson } from '../presenters.ts'
import type { ApiRoute } from '../router.ts'
import { checkItemDetails } from './card-args.ts'
import { checklistView, text } from './shared.ts'

/** Checklists: `GET /1/checklists/{id}`, `POST /1/checklists`, `POST /1/checklists/{id}/checkItems`. */

/** A checklist without a name is called "Checklist", as on trello.com [UNV]. */
const DEFAULT_CHECKLIST_NAME = 'Checklist'

function createChecklist(ctx: ApiContext) {
  const { params, store } = ctx
  const idCard = params.string('idCard')
  const card = idCard && OBJECT_ID.test(idCard) ? store.cards.get(idCard) : undefined
  const board = card ? store.boards.get(card.idBoard) : undefined
  if (!card || !board || !canWrite(ctx, board)) return fail(invalidValue('idCard'))
  const name = text(ctx, 'name', { allowEmpty: true }) || DEFAULT_CHECKLIST_NAME
  const pos = resolvePos(params.raw('pos'), store.checklistsOf(card.id))
  if (pos === null) return fail(invalidValue('pos'))
  const checklist: Checklist = {
    id: ctx.sb.newId(),
    idBoard: board.id,
    idCard: card.id,
    name,
    pos,
    checkItems: [],
  }
  store.checklists.set(checklist.id, checklist)
  card.dateLastActivity = ctx.now
  // [CAP AddChecklist.json]
  recordAction(ctx.sb, ctx.actor, {
    type: 'addChecklistToCard',
    data: {
      card: cardStub(card),
      checklist: { id: checklist.id, name: checklist.name },
      board: boardStub(board),
    },
    translationKey: 'action_add_checklist_to_card',
    alsoTouches: [card.idList],
  })
  return jsonResponse(200, checklistJson(checklist))
}

function addCheckItem(ctx: ApiContext) {
  const checklist = checklistFor(ctx, ctx.path.id as string)
  const { params, store } = ctx
  const name = text(ctx, 'name', { required: true }) as string
  const pos = resolvePos(params.raw('pos'), checklist.checkItems)
  if (pos === null) return fail(invalidValue('pos'))
  const checked = params.bool('checked') ?? false
  const details = checkItemDetails(ctx, store.boards.get(checklist.idBoard) as Board)
  const item: CheckItem = {
    id: ctx.sb.newId(),
    idChecklist: checklist.id,
    name,
    pos,
    state: checked ? 'complete' : 'incomplete',
    ...NO_CHECK_ITEM_DETAILS,
    ...details,
  }
  checklist.checkItems.push(item)
  const card = store.cards.get(checklist.idCard)
  if (card) {
    card.dateLastActivity = ctx.now
    // createCheckItem reaches webhooks but not nested action lists (sources: Trello actions and webhooks).
    recordAction(ctx.sb, ctx.actor, {
      type: 'createCheckItem',
      data: {
        board: boardStub(store.boards.get(card.idBoard) as Board),
        card: cardStub(card),
        checklist: { id: checklist.id, name: checklist.name },
        checkItem: { id: item.id, name: item.name, state: item.state, textData: { emoji: {} } },
      },
      translationKey: 'action_add_checkitem_to_checklist',
      alsoTouches: [card.idList],
    })
  }
  return jsonResponse(200, checkItemJson(item))
}

export const checklistRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/1/checklists/{id}',
    scope: 'read',
    handle: (ctx) => jsonResponse(200, checklistView(ctx, checklistFor(ctx, ctx.path.id as string))),
  },
  { method: 'POST', path: '/1/checklists', scope: 'write', handle: createChecklist },
  { method: 'POST', path: '/1/checklists/{id}/checkItems', scope: 'write', handle: addCheckItem },
]
