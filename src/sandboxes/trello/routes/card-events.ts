import { recordAction } from '../actions.ts'
import type { ApiContext } from '../context.ts'
import type { Action, Board, Card, Label, Member } from '../model.ts'
import { boardStub, cardStub } from '../presenters.ts'

/** Actions shared by several card routes (membership and label changes), in captured shapes. */

/** addMemberToCard / removeMemberFromCard [CAP AddMember.json, RemoveMember.json]. */
export function memberAction(
  ctx: ApiContext,
  card: Card,
  board: Board,
  member: Member,
  type: 'addMemberToCard' | 'removeMemberFromCard',
): Action {
  const self = member.id === ctx.actor.member.id
  const data: Record<string, unknown> = { idMember: member.id }
  if (type === 'removeMemberFromCard') data.deactivated = false
  Object.assign(data, {
    card: cardStub(card),
    board: boardStub(board),
    member: { id: member.id, name: member.fullName },
  })
  const translationKey =
    type === 'addMemberToCard'
      ? self
        ? 'action_member_joined_card'
        : 'action_added_member_to_card'
      : self
        ? 'action_member_left_card'
        : 'action_removed_member_from_card'
  return recordAction(ctx.sb, ctx.actor, {
    type,
    data,
    translationKey,
    idMember: member.id,
    alsoTouches: [card.idList],
  })
}

/** addLabelToCard / removeLabelFromCard [CAP AddLabel_Part1.json]. */
export function labelAction(
  ctx: ApiContext,
  card: Card,
  board: Board,
  label: Label,
  type: 'addLabelToCard' | 'removeLabelFromCard',
): Action {
  return recordAction(ctx.sb, ctx.actor, {
    type,
    data: {
      value: label.color,
      text: label.name,
      card: cardStub(card),
      board: boardStub(board),
      label: { id: label.id, name: label.name, color: label.color },
    },
    translationKey: type === 'addLabelToCard' ? 'action_add_label_to_card' : 'action_remove_label_from_card',
    alsoTouches: [card.idList],
  })
}

/**
 * The `updateCard` that follows a label change: "Adding a label fires 2 webhooks:
 * addLabelToCard and updateCard (idLabels)" (sources: Trello actions and webhooks) [CAP AddLabel_Part2.json].
 */
export function labelsChanged(ctx: ApiContext, card: Card, board: Board, before: string[]): Action {
  return recordAction(ctx.sb, ctx.actor, {
    type: 'updateCard',
    data: {
      card: { idLabels: [...card.idLabels], ...cardStub(card) },
      old: { idLabels: before },
      board: boardStub(board),
    },
    translationKey: 'action_update_card_labels',
    alsoTouches: [card.idList],
  })
}
