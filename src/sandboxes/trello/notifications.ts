import type { Action, Member } from './model.ts'
import type { TrelloSandbox } from './sandbox.ts'

/**
 * Notifications a member receives (sources: Trello objects; types from T-ARCH): `addedToCard` and
 * `removedFromCard` when someone else changes their card membership, `mentionedOnCard` for an
 * `@username` in a comment (board members only), `commentCard` for comments on cards they are
 * a member of, and `changeCard` when someone else updates such a card. Due-date reminders
 * (`cardDueSoon`) are not emulated.
 */
const MENTION = /(?:^|[^\w@])@([a-z0-9_]{1,64})\b/gi

export function notifyMember(
  sb: TrelloSandbox,
  action: Action,
  idMember: string,
  type: string,
  data: Record<string, unknown>,
): void {
  if (idMember === action.idMemberCreator || !sb.store.members.has(idMember)) return
  sb.store.addNotification({
    id: sb.newId(),
    idMember,
    type,
    date: action.date,
    unread: true,
    dateRead: null,
    data,
    idMemberCreator: action.idMemberCreator,
    idAction: action.id,
    appCreator: action.appCreator,
  })
}

/** Usernames mentioned in a comment, lower-cased, each once. */
export function mentions(text: string): string[] {
  return [...new Set([...text.matchAll(MENTION)].map((m) => (m[1] as string).toLowerCase()))]
}

export function notifyFor(sb: TrelloSandbox, action: Action): void {
  const { data } = action
  const cardId = (data.card as { id?: string } | undefined)?.id
  const card = cardId ? sb.store.cards.get(cardId) : undefined
  const base = { board: data.board, card: data.card }
  switch (action.type) {
    case 'addMemberToCard':
      if (action.idMember) notifyMember(sb, action, action.idMember, 'addedToCard', base)
      return
    case 'removeMemberFromCard':
      if (action.idMember) notifyMember(sb, action, action.idMember, 'removedFromCard', base)
      return
    case 'commentCard': {
      const text = String(data.text ?? '')
      const board = card ? sb.store.boards.get(card.idBoard) : undefined
      const mentioned = mentions(text)
        .map((username) => sb.store.memberByUsername(username))
        .filter((m): m is Member => m !== undefined && board?.memberships.has(m.id) === true)
      for (const member of mentioned)
        notifyMember(sb, action, member.id, 'mentionedOnCard', { text, ...base })
      for (const idMember of card?.idMembers ?? []) {
        if (!mentioned.some((m) => m.id === idMember))
          notifyMember(sb, action, idMember, 'commentCard', { text, ...base })
      }
      return
    }
    case 'updateCard': {
      const extra: Record<string, unknown> = { old: data.old }
      if (data.listBefore) Object.assign(extra, { listBefore: data.listBefore, listAfter: data.listAfter })
      for (const idMember of card?.idMembers ?? [])
        notifyMember(sb, action, idMember, 'changeCard', { ...base, ...extra })
      return
    }
    default:
      return
  }
}
