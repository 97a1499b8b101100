/** In-memory records. Times are epoch milliseconds on the sandbox clock. */

export const SCOPES = ['read', 'write', 'account'] as const
export type Scope = (typeof SCOPES)[number]

export const EXPIRATIONS = ['1hour', '1day', '30days', 'never'] as const
export type Expiration = (typeof EXPIRATIONS)[number]

export interface Member {
  id: string
  username: string
  fullName: string
  initials: string
  email: string
  /** null: cannot sign in to the sandbox pages. */
  password: string | null
  createdAt: number
}

/** Where an app may send tokens: `http://localhost:*`-style patterns or exact origins. */
export type OriginPattern = string

export interface App {
  id: string
  name: string
  /** API key, 32 hex. */
  key: string
  /** OAuth 1.0a consumer secret and webhook signing secret, 64 hex. */
  secret: string
  idMemberOwner: string | null
  allowedOrigins: OriginPattern[]
  createdAt: number
}

export interface Token {
  /** The token's own ObjectId (`GET /1/tokens/{token}` shows it). */
  id: string
  /** 64 hex. */
  value: string
  key: string
  idMember: string
  scopes: Scope[]
  expiration: Expiration
  /** The app name the user approved (`name` on /1/authorize). */
  name: string
  createdAt: number
  expiresAt: number | null
  /** OAuth 1.0a token secret; '' for tokens from /1/authorize or the control API. */
  secret: string
}

export interface RequestToken {
  value: string
  secret: string
  key: string
  callback: string
  createdAt: number
  verifier: string | null
  idMember: string | null
  scopes: Scope[]
  expiration: Expiration
  name: string
  used: boolean
}

export interface BrowserSession {
  id: string
  idMember: string
  expiresAt: number
}

export type MemberType = 'admin' | 'normal'

export interface Board {
  id: string
  name: string
  desc: string
  closed: boolean
  shortLink: string
  idMemberCreator: string
  /** idMember → membership; insertion order is the order members joined. */
  memberships: Map<string, { id: string; memberType: MemberType }>
  permissionLevel: 'private' | 'org' | 'public'
  nextIdShort: number
  dateLastActivity: number
  createdAt: number
}

export interface List {
  id: string
  idBoard: string
  name: string
  closed: boolean
  pos: number
}

export interface Attachment {
  id: string
  name: string
  url: string
  mimeType: string
  idMember: string
  date: number
  pos: number
}

export interface Card {
  id: string
  idBoard: string
  idList: string
  name: string
  desc: string
  closed: boolean
  pos: number
  due: number | null
  start: number | null
  dueComplete: boolean
  idMembers: string[]
  idLabels: string[]
  shortLink: string
  idShort: number
  dateLastActivity: number
  comments: number
  attachments: Attachment[]
}

export interface Label {
  id: string
  idBoard: string
  name: string
  color: string | null
}

export interface CheckItem {
  id: string
  idChecklist: string
  name: string
  pos: number
  state: 'complete' | 'incomplete'
  /** The item's own due date (epoch ms), apart from the card's. */
  due: number | null
  /** Minutes before `due` to remind; Trello accepts -1 for none [UNV]. */
  dueReminder: number | null
  /** The board member the item is assigned to. */
  idMember: string | null
}

/** A check item as created without a due date, a reminder or an assignee. */
export const NO_CHECK_ITEM_DETAILS: Pick<CheckItem, 'due' | 'dueReminder' | 'idMember'> = {
  due: null,
  dueReminder: null,
  idMember: null,
}

export interface Checklist {
  id: string
  idBoard: string
  idCard: string
  name: string
  pos: number
  checkItems: CheckItem[]
}

export interface DisplayEntity {
  type: string
  [key: string]: unknown
}

export interface Action {
  id: string
  type: string
  idMemberCreator: string
  date: number
  data: Record<string, unknown>
  appCreator: { id: string } | null
  translationKey: string
  entities: Record<string, DisplayEntity>
  /** The member an action is about (addMemberToCard, removeMemberFromCard). */
  idMember: string | null
  /** Ids of every model the action touches: boards, lists, cards, checklists, labels, members. */
  modelIds: string[]
}

export interface Notification {
  id: string
  idMember: string
  type: string
  date: number
  unread: boolean
  dateRead: number | null
  data: Record<string, unknown>
  idMemberCreator: string
  idAction: string
  appCreator: { id: string } | null
}

export type WebhookModelType = 'board' | 'card' | 'list' | 'member'

export interface Webhook {
  id: string
  /** The token that created it: webhooks belong to tokens (sources: Trello actions and webhooks). */
  token: string
  /** Key of the app whose secret signs deliveries. */
  key: string
  idModel: string
  modelType: WebhookModelType
  callbackURL: string
  description: string
  active: boolean
  consecutiveFailures: number
  firstConsecutiveFailDate: number | null
  createdAt: number
}
