import { recordAction } from '../actions.ts'
import type { ApiContext } from '../context.ts'
import { fail, invalidValue } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { OBJECT_ID } from '../ids.ts'
import { canWrite, cardFor } from '../lookup.ts'
import type { Board, Card, List } from '../model.ts'
import { notifyMember } from '../notifications.ts'
import { resolvePos } from '../pos.ts'
import {
  attachmentJson,
  boardJson,
  boardStub,
  cardJson,
  cardStub,
  listJson,
  listStub,
} from '../presenters.ts'
import { jsonResponse } from '../http.ts'
import type { ApiRoute } from '../router.ts'
import { boardLabelIds, boardMemberIds, linkAttachment, uniqueShortLink, validUrl } from './card-args.ts'
import { updateCard } from './card-update.ts'
import { actionList, cardActions, cardView, NESTED_ACTIONS, text } from './shared.ts'

/** Cards: `GET|PUT|DELETE /1/cards/{id}`, `POST /1/cards` (T-ARCH `POST /1/cards`, sources: Trello objects). */

function getCard(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  const { params, store } = ctx
  const json = cardView(ctx, card, 'fields')
  if (params.bool('board') === true) {
    const board = store.boards.get(card.idBoard)
    if (board) json.board = pickFields(boardJson(board, store), params.string('board_fields'))
  }
  if (params.bool('list') === true) {
    const list = store.lists.get(card.idList)
    if (list) json.list = pickFields(listJson(list), params.string('list_fields'))
  }
  if (params.has('actions')) json.actions = actionList(ctx, cardActions(ctx, card), NESTED_ACTIONS)
  return jsonResponse(200, json)
}

function createCard(ctx: ApiContext) {
  const { params, store } = ctx
  const idList = params.string('idList')
  const list: List | undefined = idList && OBJECT_ID.test(idList) ? store.lists.get(idList) : undefined
  const board = list ? store.boards.get(list.idBoard) : undefined
  if (!list || !board || !canWrite(ctx, board)) return fail(invalidValue('idList'))
  const name = text(ctx, 'name', { allowEmpty: true }) ?? ''
  const desc = text(ctx, 'desc', { allowEmpty: true }) ?? ''
  const pos = resolvePos(params.raw('pos'), store.cardsOfList(list.id))
  if (pos === null) return fail(invalidValue('pos'))
  const due = params.date('due') ?? null
  const start = params.date('start') ?? null
  const dueComplete = params.bool('dueComplete') ?? false
  const idMembers = boardMemberIds(ctx, board, 'idMembers') ?? []
  const idLabels = boardLabelIds(ctx, board, 'idLabels') ?? []
  const urlSource = params.string('urlSource')
  if (urlSource !== undefined && !validUrl(urlSource)) return fail(invalidValue('urlSource'))

  const card: Card = {
    id: ctx.sb.newId(),
    idBoard: board.id,
    idList: list.id,
    name,
    desc,
    closed: false,
    pos,
    due,
    start,
    dueComplete,
    idMembers,
    idLabels,
    shortLink: uniqueShortLink(ctx),
    idShort: board.nextIdShort++,
    dateLastActivity: ctx.now,
    comments: 0,
    attachments: [],
  }
  store.cards.set(card.id, card)
  if (urlSource) linkAttachment(ctx, card, urlSource, undefined, undefined)
  const action = recordAction(ctx.sb, ctx.actor, {
    type: 'createCard',
    data: { card: cardStub(card), list: listStub(list), board: boardStub(board) },
    translationKey: 'action_create_card',
  })
  for (const idMember of idMembers)
    notifyMember(ctx.sb, action, idMember, 'addedToCard', { board: boardStub(board), card: cardStub(card) })
  // The create answer carries a few extras over GET (T-JS live tests).
  return jsonResponse(200, {
    ...cardJson(card, store),
    attachments: card.attachments.map(attachmentJson),
    stickers: [],
    limits: {},
  })
}

function deleteCard(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  const { store } = ctx
  const board = store.boards.get(card.idBoard) as Board
  const list = store.lists.get(card.idList)
  // Recorded before the card goes, so a card webhook still gets its model (sources: Trello actions and webhooks deleteCard shape).
  recordAction(ctx.sb, ctx.actor, {
    type: 'deleteCard',
    data: {
      card: { id: card.id, idShort: card.idShort, shortLink: card.shortLink },
      ...(list ? { list: listStub(list) } : {}),
      board: boardStub(board),
    },
    translationKey: 'action_delete_card',
  })
  store.cards.delete(card.id)
  for (const checklist of store.checklistsOf(card.id)) store.checklists.delete(checklist.id)
  // Webhooks on a deleted model have nothing left to watch [UNV].
  for (const webhook of [...store.webhooks.values()])
    if (webhook.idModel === card.id) store.webhooks.delete(webhook.id)
  // DELETE answers `{"limits":{}}` [UNV, from memory of the live API].
  return jsonResponse(200, { limits: {} })
}

export const cardRoutes: ApiRoute[] = [
  { method: 'GET', path: '/1/cards/{id}', scope: 'read', handle: getCard },
  { method: 'POST', path: '/1/cards', scope: 'write', handle: createCard },
  { method: 'PUT', path: '/1/cards/{id}', scope: 'write', handle: updateCard },
  { method: 'DELETE', path: '/1/cards/{id}', scope: 'write', handle: deleteCard },
]
