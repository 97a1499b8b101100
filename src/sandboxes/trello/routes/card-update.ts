import { recordAction } from '../actions.ts'
import type { ApiContext } from '../context.ts'
import { fail, invalidValue } from '../errors.ts'
import { jsonResponse, type SandboxResponse } from '../http.ts'
import { OBJECT_ID } from '../ids.ts'
import { canWrite, cardFor } from '../lookup.ts'
import type { Board, Card, Label, List, Member } from '../model.ts'
import { resolvePos } from '../pos.ts'
import { boardStub, cardJson, cardStub, listStub } from '../presenters.ts'
import { isoOrNull } from '../time.ts'
import { labelAction, memberAction } from './card-events.ts'
import { boardLabelIds, boardMemberIds } from './card-args.ts'
import { text } from './shared.ts'

/**
 * `PUT /1/cards/{id}`: every argument is validated before anything changes. Then, in order:
 * a move to another board (moveCardFromBoard + moveCardToBoard), label and member changes
 * (their own actions), and one `updateCard` holding every other changed field in `data.old`
 * (the card stub carries the new values; `listBefore`/`listAfter` on a move between lists) —
 * the shapes of sources: Trello actions and webhooks (T-DOTNET, T-RBFIX).
 */

type Changes = { old: Record<string, unknown>; now: Record<string, unknown> }

function translationKey({ old, now }: Changes): string {
  if ('idList' in old) return 'action_move_card_from_list_to_list'
  if ('closed' in old) return now.closed ? 'action_archived_card' : 'action_sent_card_to_board'
  if ('name' in old) return 'action_renamed_card'
  if ('desc' in old) return 'action_changed_description_of_card'
  if ('due' in old)
    return old.due === null
      ? 'action_added_a_due_date'
      : now.due === null
        ? 'action_removed_a_due_date'
        : 'action_changed_a_due_date'
  if ('dueComplete' in old)
    return now.dueComplete ? 'action_marked_the_due_date_complete' : 'action_marked_the_due_date_incomplete'
  if ('start' in old) return 'action_changed_a_start_date'
  if ('pos' in old)
    return (now.pos as number) < (old.pos as number) ? 'action_moved_card_higher' : 'action_moved_card_lower'
  return 'action_update_card'
}

interface Plan {
  board: Board
  list: List
  name?: string
  desc?: string
  closed?: boolean
  pos?: number
  due?: number | null
  start?: number | null
  dueComplete?: boolean
  idMembers?: string[]
  idLabels?: string[]
}

function plan(ctx: ApiContext, card: Card): Plan {
  const { params, store } = ctx
  const currentBoard = store.boards.get(card.idBoard) as Board
  let board = currentBoard
  const idBoard = params.string('idBoard')
  if (idBoard !== undefined && idBoard !== card.idBoard) {
    const target = OBJECT_ID.test(idBoard) ? store.boards.get(idBoard) : undefined
    if (!target || !canWrite(ctx, target)) return fail(invalidValue('idBoard'))
    board = target
  }
  let list = store.lists.get(card.idList) as List
  const idList = params.string('idList')
  if (idList !== undefined) {
    const target = OBJECT_ID.test(idList) ? store.lists.get(idList) : undefined
    if (!target || target.idBoard !== board.id) return fail(invalidValue('idList'))
    list = target
  } else if (board !== currentBoard) {
    // Moving to another board without a list lands in its first open list [UNV].
    const first = store.listsOf(board.id).find((l) => !l.closed)
    if (!first) return fail(invalidValue('idBoard'))
    list = first
  }
  const posRaw = params.raw('pos')
  const pos =
    posRaw === undefined
      ? undefined
      : resolvePos(
          posRaw,
          store.cardsOfList(list.id).filter((c) => c.id !== card.id),
        )
  if (pos === null) return fail(invalidValue('pos'))
  return {
    board,
    list,
    name: params.has('name') ? text(ctx, 'name') : undefined,
    desc: params.has('desc') ? text(ctx, 'desc', { allowEmpty: true }) : undefined,
    closed: params.bool('closed'),
    pos,
    due: params.date('due'),
    start: params.date('start'),
    dueComplete: params.bool('dueComplete'),
    idMembers: boardMemberIds(ctx, board, 'idMembers'),
    idLabels: boardLabelIds(ctx, board, 'idLabels'),
  }
}

function moveBoards(ctx: ApiContext, card: Card, from: Board, to: Board, list: List): void {
  const { store } = ctx
  recordAction(ctx.sb, ctx.actor, {
    type: 'moveCardFromBoard',
    data: {
      board: boardStub(from),
      boardTarget: { id: to.id },
      card: cardStub(card),
      list: listStub(store.lists.get(card.idList) as List),
    },
    translationKey: 'action_move_card_to_board',
  })
  card.idBoard = to.id
  card.idList = list.id
  card.idShort = to.nextIdShort++
  // Labels and members belong to boards: those the new board lacks fall away.
  card.idLabels = card.idLabels.filter((id) => store.labels.get(id)?.idBoard === to.id)
  card.idMembers = card.idMembers.filter((id) => to.memberships.has(id))
  for (const checklist of store.checklistsOf(card.id)) checklist.idBoard = to.id
  recordAction(ctx.sb, ctx.actor, {
    type: 'moveCardToBoard',
    data: { board: boardStub(to), boardSource: { id: from.id }, card: cardStub(card), list: listStub(list) },
    translationKey: 'action_move_card_from_board',
  })
}

function syncMembers(ctx: ApiContext, card: Card, board: Board, wanted: string[]): void {
  const removed = card.idMembers.filter((id) => !wanted.includes(id))
  const added = wanted.filter((id) => !card.idMembers.includes(id))
  for (const id of removed) {
    card.idMembers = card.idMembers.filter((m) => m !== id)
    memberAction(ctx, card, board, ctx.store.members.get(id) as Member, 'removeMemberFromCard')
  }
  for (const id of added) {
    card.idMembers.push(id)
    memberAction(ctx, card, board, ctx.store.members.get(id) as Member, 'addMemberToCard')
  }
}

function syncLabels(ctx: ApiContext, card: Card, board: Board, wanted: string[]): void {
  for (const id of card.idLabels.filter((l) => !wanted.includes(l))) {
    card.idLabels = card.idLabels.filter((l) => l !== id)
    labelAction(ctx, card, board, ctx.store.labels.get(id) as Label, 'removeLabelFromCard')
  }
  for (const id of wanted.filter((l) => !card.idLabels.includes(l))) {
    card.idLabels.push(id)
    labelAction(ctx, card, board, ctx.store.labels.get(id) as Label, 'addLabelToCard')
  }
}

export function updateCard(ctx: ApiContext): SandboxResponse {
  const card = cardFor(ctx, ctx.path.id as string)
  const p = plan(ctx, card)
  const { store } = ctx
  const fromBoard = store.boards.get(card.idBoard) as Board
  const listBefore = store.lists.get(card.idList) as List
  const labelsBefore = [...card.idLabels]

  if (p.board !== fromBoard) moveBoards(ctx, card, fromBoard, p.board, p.list)
  if (p.idLabels) syncLabels(ctx, card, p.board, p.idLabels)
  if (p.idMembers) syncMembers(ctx, card, p.board, p.idMembers)

  const changes: Changes = { old: {}, now: {} }
  const change = (field: string, before: unknown, after: unknown) => {
    if (before === after) return
    changes.old[field] = before
    changes.now[field] = after
  }
  if (p.board === fromBoard && p.list.id !== card.idList) {
    change('idList', card.idList, p.list.id)
    card.idList = p.list.id
  }
  if (p.name !== undefined) change('name', card.name, (card.name = p.name))
  if (p.desc !== undefined) change('desc', card.desc, (card.desc = p.desc))
  if (p.closed !== undefined) change('closed', card.closed, (card.closed = p.closed))
  if (p.pos !== undefined) change('pos', card.pos, (card.pos = p.pos))
  if (p.due !== undefined) change('due', isoOrNull(card.due), isoOrNull((card.due = p.due)))
  if (p.start !== undefined) change('start', isoOrNull(card.start), isoOrNull((card.start = p.start)))
  if (p.dueComplete !== undefined) change('dueComplete', card.dueComplete, (card.dueComplete = p.dueComplete))
  if (
    p.idLabels &&
    (labelsBefore.length !== card.idLabels.length || labelsBefore.some((id, i) => card.idLabels[i] !== id)) &&
    p.board === fromBoard
  ) {
    changes.old.idLabels = labelsBefore
    changes.now.idLabels = [...card.idLabels]
  }
  card.dateLastActivity = ctx.now

  if (Object.keys(changes.old).length > 0) {
    const data: Record<string, unknown> = {
      card: { ...changes.now, ...cardStub(card) },
      old: changes.old,
      board: boardStub(p.board),
    }
    if ('idList' in changes.old)
      Object.assign(data, { listBefore: listStub(listBefore), listAfter: listStub(p.list) })
    else data.list = listStub(p.list)
    recordAction(ctx.sb, ctx.actor, { type: 'updateCard', data, translationKey: translationKey(changes) })
  }
  return jsonResponse(200, cardJson(card, store))
}
