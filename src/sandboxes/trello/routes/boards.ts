import { recordAction } from '../actions.ts'
import type { ApiContext } from '../context.ts'
import { fail, invalidValue } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { jsonResponse } from '../http.ts'
import { boardFor } from '../lookup.ts'
import type { Board, Label, List, Member } from '../model.ts'
import { POS_STEP } from '../pos.ts'
import { boardJson, boardStub, checklistJson, labelJson, listJson } from '../presenters.ts'
import type { ApiRoute } from '../router.ts'
import { uniqueShortLink } from './card-args.ts'
import {
  actionList,
  boardActions,
  cardView,
  filterCards,
  filterOpenClosed,
  membersJson,
  NESTED_ACTIONS,
  text,
  TOP_LEVEL_ACTIONS,
} from './shared.ts'

/** Boards: `GET /1/boards/{id}` (+ nested lists, cards, labels, members, actions), `POST /1/boards`. */

export const DEFAULT_LIST_NAMES = ['To Do', 'Doing', 'Done']
/** A new board's default labels: six colors with empty names, as on trello.com [UNV]. */
export const DEFAULT_LABEL_COLORS = ['green', 'yellow', 'orange', 'red', 'purple', 'blue']
const DEFAULT_LABELS_LIMIT = 50

function boardMembers(ctx: ApiContext, board: Board, filter: string | undefined, name: string): Member[] {
  const entries = [...board.memberships.entries()]
  const chosen = (() => {
    switch (filter ?? 'all') {
      case 'all':
      case 'normal':
        return filter === 'normal' ? entries.filter(([, m]) => m.memberType === 'normal') : entries
      case 'admins':
      case 'owners':
        return entries.filter(([, m]) => m.memberType === 'admin')
      case 'none':
        return []
      default:
        return fail(invalidValue(name))
    }
  })()
  return chosen.map(([id]) => ctx.store.members.get(id)).filter((m): m is Member => m !== undefined)
}

function labels(ctx: ApiContext, board: Board, limitName: string): Label[] {
  const limit = ctx.params.int(limitName, DEFAULT_LABELS_LIMIT, 0, 1000)
  return ctx.store.labelsOf(board.id).slice(0, limit)
}

function listsView(
  ctx: ApiContext,
  lists: List[],
  fieldsName: string,
  cardsName: string | null,
): Record<string, unknown>[] {
  const fields = ctx.params.string(fieldsName)
  return lists.map((list) => {
    const json = pickFields(listJson(list), fields)
    if (cardsName) {
      const filter = ctx.params.string(cardsName)
      if (filter !== undefined && filter !== 'none') {
        json.cards = filterCards(ctx, ctx.store.cardsOfList(list.id), filter, cardsName).map((c) =>
          cardView(ctx, c, 'card_fields', 'card_'),
        )
      }
    }
    return json
  })
}

function getBoard(ctx: ApiContext) {
  const board = boardFor(ctx, ctx.path.id as string)
  const { params, store } = ctx
  const fields = params.string('fields')
  // `memberships=all` (or asking for the field) adds the board's memberships.
  const memberships = params.string('memberships')
  const wantMemberships =
    (memberships !== undefined && memberships !== 'none') ||
    fields?.split(',').includes('memberships') === true
  const json = pickFields(boardJson(board, store, { memberships: wantMemberships }), fields)
  if (wantMemberships && !('memberships' in json))
    json.memberships = boardJson(board, store, { memberships: true }).memberships
  const lists = params.string('lists')
  if (lists !== undefined && lists !== 'none')
    json.lists = listsView(
      ctx,
      filterOpenClosed(store.listsOf(board.id), lists, 'lists'),
      'list_fields',
      null,
    )
  const cards = params.string('cards')
  if (cards !== undefined && cards !== 'none') {
    json.cards = filterCards(ctx, store.cardsOfBoard(board.id), cards, 'cards').map((c) =>
      cardView(ctx, c, 'card_fields', 'card_'),
    )
  }
  const labelsArg = params.string('labels')
  if (labelsArg === 'all')
    json.labels = labels(ctx, board, 'labels_limit').map((l) =>
      pickFields(labelJson(l, store), params.string('label_fields')),
    )
  const members = params.string('members')
  if (members !== undefined && members !== 'none')
    json.members = membersJson(ctx, boardMembers(ctx, board, members, 'members'), 'member_fields')
  if (params.has('actions') && params.string('actions') !== 'none')
    json.actions = actionList(ctx, boardActions(ctx, board), NESTED_ACTIONS)
  if (params.string('checklists') === 'all') {
    json.checklists = store
      .checklistsOfBoard(board.id)
      .map((c) => pickFields(checklistJson(c), params.string('checklist_fields'), ['id', 'checkItems']))
  }
  return jsonResponse(200, json)
}

function createBoard(ctx: ApiContext) {
  const { params, store } = ctx
  const name = text(ctx, 'name', { required: true }) as string
  const desc = text(ctx, 'desc', { allowEmpty: true }) ?? ''
  const level = params.string('prefs_permissionLevel') ?? 'private'
  if (level !== 'private' && level !== 'org' && level !== 'public')
    return fail(invalidValue('prefs_permissionLevel'))
  const defaultLists = params.bool('defaultLists') ?? true
  const defaultLabels = params.bool('defaultLabels') ?? true
  const me = ctx.actor.member
  const board: Board = {
    id: ctx.sb.newId(),
    name,
    desc,
    closed: false,
    shortLink: uniqueShortLink(ctx),
    idMemberCreator: me.id,
    memberships: new Map([[me.id, { id: ctx.sb.newId(), memberType: 'admin' as const }]]),
    permissionLevel: level,
    nextIdShort: 1,
    dateLastActivity: ctx.now,
    createdAt: ctx.now,
  }
  store.boards.set(board.id, board)
  if (defaultLabels) {
    for (const color of DEFAULT_LABEL_COLORS) {
      const label: Label = { id: ctx.sb.newId(), idBoard: board.id, name: '', color }
      store.labels.set(label.id, label)
    }
  }
  if (defaultLists) {
    DEFAULT_LIST_NAMES.forEach((listName, i) => {
      const list: List = {
        id: ctx.sb.newId(),
        idBoard: board.id,
        name: listName,
        closed: false,
        pos: POS_STEP * (i + 1),
      }
      store.lists.set(list.id, list)
    })
  }
  // createBoard data is not captured; `{board:{id,name,shortLink}}` as sources: Trello actions and webhooks suggests [UNV].
  // Default lists and labels come with the board and record no actions of their own [UNV].
  recordAction(ctx.sb, ctx.actor, {
    type: 'createBoard',
    data: { board: boardStub(board) },
    translationKey: 'action_create_board',
  })
  return jsonResponse(200, boardJson(board, store))
}

export const boardRoutes: ApiRoute[] = [
  { method: 'GET', path: '/1/boards/{id}', scope: 'read', handle: getBoard },
  {
    method: 'GET',
    path: '/1/boards/{id}/lists',
    scope: 'read',
    handle: (ctx) => {
      const board = boardFor(ctx, ctx.path.id as string)
      const lists = filterOpenClosed(ctx.store.listsOf(board.id), ctx.params.string('filter'), 'filter')
      return jsonResponse(200, listsView(ctx, lists, 'fields', 'cards'))
    },
  },
  {
    method: 'GET',
    path: '/1/boards/{id}/cards',
    scope: 'read',
    handle: (ctx) => {
      const board = boardFor(ctx, ctx.path.id as string)
      const cards = filterCards(
        ctx,
        ctx.store.cardsOfBoard(board.id),
        ctx.params.string('filter') ?? 'visible',
        'filter',
      )
      return jsonResponse(
        200,
        cards.map((c) => cardView(ctx, c, 'fields')),
      )
    },
  },
  {
    method: 'GET',
    path: '/1/boards/{id}/actions',
    scope: 'read',
    handle: (ctx) => {
      const board = boardFor(ctx, ctx.path.id as string)
      return jsonResponse(200, actionList(ctx, boardActions(ctx, board), TOP_LEVEL_ACTIONS('all')))
    },
  },
  {
    method: 'GET',
    path: '/1/boards/{id}/labels',
    scope: 'read',
    handle: (ctx) => {
      const board = boardFor(ctx, ctx.path.id as string)
      const fields = ctx.params.string('fields')
      return jsonResponse(
        200,
        labels(ctx, board, 'limit').map((l) => pickFields(labelJson(l, ctx.store), fields)),
      )
    },
  },
  {
    method: 'GET',
    path: '/1/boards/{id}/members',
    scope: 'read',
    handle: (ctx) => {
      const board = boardFor(ctx, ctx.path.id as string)
      return jsonResponse(
        200,
        membersJson(ctx, boardMembers(ctx, board, ctx.params.string('filter'), 'filter')),
      )
    },
  },
  { method: 'POST', path: '/1/boards', scope: 'write', handle: createBoard },
]
