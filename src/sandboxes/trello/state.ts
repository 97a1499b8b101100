import { OBJECT_ID, SHORT_LINK } from './ids.ts'
import type {
  Action,
  App,
  Board,
  BrowserSession,
  Card,
  Checklist,
  Label,
  List,
  Member,
  Notification,
  RequestToken,
  Token,
  Webhook,
} from './model.ts'

/** How many actions and notifications are kept (oldest dropped first). */
export const MAX_ACTIONS = 20_000

const byPos = <T extends { pos: number; id: string }>(a: T, b: T) => a.pos - b.pos || (a.id < b.id ? -1 : 1)

/** All records of one sandbox, with the lookups the routes need. */
export class TrelloStore {
  readonly members = new Map<string, Member>()
  /** By API key. */
  readonly apps = new Map<string, App>()
  /** By token value. */
  readonly tokens = new Map<string, Token>()
  readonly requestTokens = new Map<string, RequestToken>()
  readonly sessions = new Map<string, BrowserSession>()
  readonly boards = new Map<string, Board>()
  readonly lists = new Map<string, List>()
  readonly cards = new Map<string, Card>()
  readonly labels = new Map<string, Label>()
  readonly checklists = new Map<string, Checklist>()
  readonly webhooks = new Map<string, Webhook>()
  /** Chronological. */
  actions: Action[] = []
  notifications: Notification[] = []

  memberByUsername(username: string): Member | undefined {
    const wanted = username.toLowerCase()
    for (const member of this.members.values()) if (member.username === wanted) return member
    return undefined
  }

  memberByEmail(email: string): Member | undefined {
    const wanted = email.trim().toLowerCase()
    for (const member of this.members.values()) if (member.email === wanted) return member
    return undefined
  }

  /** A member by id or username (Trello accepts both in `/1/members/{idMember}`). */
  memberByRef(ref: string): Member | undefined {
    return OBJECT_ID.test(ref) ? this.members.get(ref) : this.memberByUsername(ref)
  }

  /** Boards and cards are addressable by id or shortLink. */
  boardByRef(ref: string): Board | undefined {
    if (OBJECT_ID.test(ref)) return this.boards.get(ref)
    if (!SHORT_LINK.test(ref)) return undefined
    for (const board of this.boards.values()) if (board.shortLink === ref) return board
    return undefined
  }

  cardByRef(ref: string): Card | undefined {
    if (OBJECT_ID.test(ref)) return this.cards.get(ref)
    if (!SHORT_LINK.test(ref)) return undefined
    for (const card of this.cards.values()) if (card.shortLink === ref) return card
    return undefined
  }

  appOwnedBy(idMember: string): App[] {
    return [...this.apps.values()].filter((app) => app.idMemberOwner === idMember)
  }

  listsOf(idBoard: string): List[] {
    return [...this.lists.values()].filter((l) => l.idBoard === idBoard).sort(byPos)
  }

  cardsOfList(idList: string): Card[] {
    return [...this.cards.values()].filter((c) => c.idList === idList).sort(byPos)
  }

  /** Cards of a board in board order: by list position, then card position. */
  cardsOfBoard(idBoard: string): Card[] {
    const listOrder = new Map(this.listsOf(idBoard).map((l, i) => [l.id, i]))
    return [...this.cards.values()]
      .filter((c) => c.idBoard === idBoard)
      .sort((a, b) => (listOrder.get(a.idList) ?? 0) - (listOrder.get(b.idList) ?? 0) || byPos(a, b))
  }

  labelsOf(idBoard: string): Label[] {
    return [...this.labels.values()].filter((l) => l.idBoard === idBoard)
  }

  checklistsOf(idCard: string): Checklist[] {
    return [...this.checklists.values()].filter((c) => c.idCard === idCard).sort(byPos)
  }

  checklistsOfBoard(idBoard: string): Checklist[] {
    return [...this.checklists.values()].filter((c) => c.idBoard === idBoard).sort(byPos)
  }

  boardsOf(idMember: string): Board[] {
    return [...this.boards.values()].filter((b) => b.memberships.has(idMember))
  }

  webhooksOfToken(token: string): Webhook[] {
    return [...this.webhooks.values()].filter((w) => w.token === token)
  }

  addAction(action: Action): void {
    this.actions.push(action)
    if (this.actions.length > MAX_ACTIONS) this.actions.splice(0, this.actions.length - MAX_ACTIONS)
  }

  addNotification(notification: Notification): void {
    this.notifications.push(notification)
    if (this.notifications.length > MAX_ACTIONS)
      this.notifications.splice(0, this.notifications.length - MAX_ACTIONS)
  }

  /** Removes a token and, as Trello does when a token is revoked or expires, its webhooks (sources: Trello actions and webhooks). */
  revokeToken(value: string): boolean {
    const existed = this.tokens.delete(value)
    for (const webhook of this.webhooksOfToken(value)) this.webhooks.delete(webhook.id)
    return existed
  }
}
