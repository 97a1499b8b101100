import { recordAction } from '../actions.ts'
import type { ApiContext } from '../context.ts'
import { fail, invalidId, invalidValue } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { jsonResponse, textResponse } from '../http.ts'
import { OBJECT_ID } from '../ids.ts'
import { cardFor, checkItemOn } from '../lookup.ts'
import type { Board, Card, Member } from '../model.ts'
import { resolvePos } from '../pos.ts'
import { actionJson, attachmentJson, boardStub, cardStub, checkItemJson, listStub } from '../presenters.ts'
import type { ApiRoute } from '../router.ts'
import { isoOrNull } from '../time.ts'
import { labelAction, labelsChanged, memberAction } from './card-events.ts'
import { checkItemDetails, linkAttachment, validUrl, type CheckItemDetails } from './card-args.ts'
import { actionList, cardActions, checklistView, membersJson, text, TOP_LEVEL_ACTIONS } from './shared.ts'

/** What hangs off a card: comments, actions, members, labels, attachments, checklists. */

const boardOf = (ctx: ApiContext, card: Card) => ctx.store.boards.get(card.idBoard) as Board
const cardMembers = (ctx: ApiContext, card: Card) =>
  card.idMembers.map((id) => ctx.store.members.get(id)).filter((m): m is Member => m !== undefined)

/** `POST /1/cards/{id}/actions/comments` answers the commentCard action [CAP ReturnValueFromAddComment.json]. */
function comment(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  const body = text(ctx, 'text', { required: true }) as string
  const board = boardOf(ctx, card)
  card.comments += 1
  card.dateLastActivity = ctx.now
  const list = ctx.store.lists.get(card.idList)
  const action = recordAction(ctx.sb, ctx.actor, {
    type: 'commentCard',
    data: {
      text: body,
      textData: { emoji: {} },
      card: cardStub(card),
      board: boardStub(board),
      ...(list ? { list: listStub(list) } : {}),
    },
    translationKey: 'action_comment_on_card',
  })
  return jsonResponse(200, actionJson(action, ctx.store))
}

/**
 * `GET /1/cards/{id}/actions`. Trello's default filter here is `commentCard, updateCard:idList`
 * (T-ARCH card.html), not `all`.
 */
function listCardActions(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  return jsonResponse(
    200,
    actionList(ctx, cardActions(ctx, card), TOP_LEVEL_ACTIONS('commentCard,updateCard:idList')),
  )
}

/** Adds a member; answers the card's members [UNV answer shape]. */
function addMember(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  const board = boardOf(ctx, card)
  const id = ctx.params.string('value')
  const member = id && OBJECT_ID.test(id) && board.memberships.has(id) ? ctx.store.members.get(id) : undefined
  if (!member) return fail(invalidValue('value'))
  if (card.idMembers.includes(member.id)) return textResponse(400, 'member is already on the card')
  card.idMembers.push(member.id)
  card.dateLastActivity = ctx.now
  memberAction(ctx, card, board, member, 'addMemberToCard')
  return jsonResponse(200, membersJson(ctx, cardMembers(ctx, card)))
}

function removeMember(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  const id = ctx.path.idMember as string
  if (!OBJECT_ID.test(id)) return fail(invalidId())
  const member = ctx.store.members.get(id)
  if (!member || !card.idMembers.includes(id)) return textResponse(400, 'member is not on the card')
  card.idMembers = card.idMembers.filter((m) => m !== id)
  card.dateLastActivity = ctx.now
  memberAction(ctx, card, boardOf(ctx, card), member, 'removeMemberFromCard')
  return jsonResponse(200, membersJson(ctx, cardMembers(ctx, card)))
}

/** Adds a label; answers the card's label ids [UNV answer shape]. */
function addLabel(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  const board = boardOf(ctx, card)
  const id = ctx.params.string('value')
  const label = id && OBJECT_ID.test(id) ? ctx.store.labels.get(id) : undefined
  if (!label || label.idBoard !== board.id) return fail(invalidValue('value'))
  if (card.idLabels.includes(label.id)) return textResponse(400, 'that label is already on the card')
  const before = [...card.idLabels]
  card.idLabels.push(label.id)
  card.dateLastActivity = ctx.now
  labelAction(ctx, card, board, label, 'addLabelToCard')
  labelsChanged(ctx, card, board, before)
  return jsonResponse(200, [...card.idLabels])
}

/** Removes a label; answers `{"_value":null}` [UNV, from memory of the live API]. */
function removeLabel(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  const id = ctx.path.idLabel as string
  if (!OBJECT_ID.test(id)) return fail(invalidId())
  const label = ctx.store.labels.get(id)
  if (!label || !card.idLabels.includes(id)) return textResponse(400, 'that label is not on the card')
  const board = boardOf(ctx, card)
  const before = [...card.idLabels]
  card.idLabels = card.idLabels.filter((l) => l !== id)
  card.dateLastActivity = ctx.now
  labelAction(ctx, card, board, label, 'removeLabelFromCard')
  labelsChanged(ctx, card, board, before)
  return jsonResponse(200, { _value: null })
}

/** Link attachments only: file uploads (multipart `file`) are not emulated. */
function addAttachment(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  const url = ctx.params.string('url')
  if (!validUrl(url)) return fail(invalidValue('url'))
  const name = text(ctx, 'name', { max: 256 })
  const mimeType = ctx.params.string('mimeType')
  const attachment = linkAttachment(ctx, card, url, name, mimeType)
  card.dateLastActivity = ctx.now
  const list = ctx.store.lists.get(card.idList)
  recordAction(ctx.sb, ctx.actor, {
    type: 'addAttachmentToCard',
    data: {
      attachment: { id: attachment.id, name: attachment.name, url: attachment.url },
      card: cardStub(card),
      ...(list ? { list: listStub(list) } : {}),
      board: boardStub(boardOf(ctx, card)),
    },
    translationKey: 'action_add_attachment_to_card',
  })
  return jsonResponse(200, attachmentJson(attachment))
}

function listAttachments(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  const fields = ctx.params.string('fields')
  return jsonResponse(
    200,
    [...card.attachments].sort((a, b) => a.pos - b.pos).map((a) => pickFields(attachmentJson(a), fields)),
  )
}

function listChecklists(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  return jsonResponse(
    200,
    ctx.store.checklistsOf(card.id).map((c) => checklistView(ctx, c)),
  )
}

/**
 * `PUT /1/cards/{id}/checkItem/{idCheckItem}`: `state` (complete|incomplete, or true|false),
 * `name`, `pos`, `idChecklist` (another checklist of the same card), `due`, `dueReminder`, `idMember`.
 */
function updateCheckItem(ctx: ApiContext) {
  const card = cardFor(ctx, ctx.path.id as string)
  const { checklist, item } = checkItemOn(ctx, card, ctx.path.idCheckItem as string)
  const { params } = ctx
  const rawState = params.string('state')
  const state =
    rawState === undefined
      ? undefined
      : rawState === 'complete' || rawState === 'true'
        ? 'complete'
        : rawState === 'incomplete' || rawState === 'false'
          ? 'incomplete'
          : fail(invalidValue('state'))
  const name = params.has('name') ? text(ctx, 'name') : undefined
  let target = checklist
  const idChecklist = params.string('idChecklist')
  if (idChecklist !== undefined && idChecklist !== checklist.id) {
    const other = OBJECT_ID.test(idChecklist) ? ctx.store.checklists.get(idChecklist) : undefined
    if (!other || other.idCard !== card.id) return fail(invalidValue('idChecklist'))
    target = other
  }
  const pos = params.has('pos')
    ? resolvePos(
        params.raw('pos'),
        target.checkItems.filter((i) => i.id !== item.id),
      )
    : undefined
  if (pos === null) return fail(invalidValue('pos'))

  const board = boardOf(ctx, card)
  const details = checkItemDetails(ctx, board)
  const stubs = () => ({
    board: boardStub(board),
    card: cardStub(card),
    checklist: { id: target.id, name: target.name },
    checkItem: { id: item.id, name: item.name, state: item.state, textData: { emoji: {} } },
  })
  const old: Record<string, unknown> = {}
  if (name !== undefined && name !== item.name) old.name = item.name
  if (pos !== undefined && pos !== item.pos) old.pos = item.pos
  for (const [field, value] of Object.entries(details) as Array<[keyof CheckItemDetails, unknown]>) {
    if (value !== item[field]) old[field] = field === 'due' ? isoOrNull(item.due) : item[field]
  }
  if (target !== checklist) {
    checklist.checkItems = checklist.checkItems.filter((i) => i.id !== item.id)
    item.idChecklist = target.id
    target.checkItems.push(item)
  }
  if (name !== undefined) item.name = name
  if (pos !== undefined) item.pos = pos
  Object.assign(item, details)
  card.dateLastActivity = ctx.now
  if (Object.keys(old).length > 0) {
    recordAction(ctx.sb, ctx.actor, {
      type: 'updateCheckItem',
      data: { ...stubs(), old },
      translationKey: 'action_renamed_checkitem',
      alsoTouches: [card.idList],
    })
  }
  if (state !== undefined && state !== item.state) {
    item.state = state
    // [CAP ChecklistItemChecked.json]
    recordAction(ctx.sb, ctx.actor, {
      type: 'updateCheckItemStateOnCard',
      data: stubs(),
      translationKey:
        state === 'complete' ? 'action_completed_checkitem' : 'action_marked_checkitem_incomplete',
      alsoTouches: [card.idList],
    })
  }
  return jsonResponse(200, checkItemJson(item))
}

export const cardRelationRoutes: ApiRoute[] = [
  { method: 'POST', path: '/1/cards/{id}/actions/comments', scope: 'write', handle: comment },
  { method: 'GET', path: '/1/cards/{id}/actions', scope: 'read', handle: listCardActions },
  { method: 'POST', path: '/1/cards/{id}/idMembers', scope: 'write', handle: addMember },
  { method: 'DELETE', path: '/1/cards/{id}/idMembers/{idMember}', scope: 'write', handle: removeMember },
  {
    method: 'GET',
    path: '/1/cards/{id}/members',
    scope: 'read',
    handle: (ctx) =>
      jsonResponse(200, membersJson(ctx, cardMembers(ctx, cardFor(ctx, ctx.path.id as string)))),
  },
  { method: 'POST', path: '/1/cards/{id}/idLabels', scope: 'write', handle: addLabel },
  { method: 'DELETE', path: '/1/cards/{id}/idLabels/{idLabel}', scope: 'write', handle: removeLabel },
  { method: 'POST', path: '/1/cards/{id}/attachments', scope: 'write', handle: addAttachment },
  { method: 'GET', path: '/1/cards/{id}/attachments', scope: 'read', handle: listAttachments },
  { method: 'GET', path: '/1/cards/{id}/checklists', scope: 'read', handle: listChecklists },
  { method: 'PUT', path: '/1/cards/{id}/checkItem/{idCheckItem}', scope: 'write', handle: updateCheckItem },
]
