import type {
  Action,
  App,
  Attachment,
  Board,
  Card,
  CheckItem,
  Checklist,
  Label,
  List,
  Member,
  Notification,
  Webhook,
} from './model.ts'
import type { TrelloStore } from './state.ts'
import { iso, isoOrNull } from './time.ts'

/** JSON shapes, after the captured fixtures in sources: Trello objects (T-DOTNET, T-JS). */

/** URLs the sandbox returns use Trello's own fixed form, as the contract allows. */
export const TRELLO_WEB = 'https://trello.com'

export const BASE_LABEL_COLORS = [
  'green',
  'yellow',
  'orange',
  'red',
  'purple',
  'blue',
  'sky',
  'lime',
  'pink',
  'black',
] as const
/** Every label color Trello knows: the ten base colors and their `_light` / `_dark` variants. */
export const LABEL_COLORS: readonly string[] = [
  ...BASE_LABEL_COLORS,
  ...BASE_LABEL_COLORS.map((c) => `${c}_dark`),
  ...BASE_LABEL_COLORS.map((c) => `${c}_light`),
]

/** Trello's URL slug: lower case, runs of other characters become one dash. */
export function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

export function initials(fullName: string): string {
  return (
    fullName
      .split(/\s+/)
      .filter(Boolean)
      .map((w) => w[0]?.toUpperCase() ?? '')
      .join('')
      .slice(0, 4) || '?'
  )
}

export const boardStub = (board: Board) => ({ id: board.id, name: board.name, shortLink: board.shortLink })
export const listStub = (list: List) => ({ id: list.id, name: list.name })
export const cardStub = (card: Card) => ({
  id: card.id,
  name: card.name,
  idShort: card.idShort,
  shortLink: card.shortLink,
})

/** `{id, fullName, username}`: the default member shape of nested lists [CAP Members.json]. */
export function memberMiniJson(member: Member): Record<string, unknown> {
  return { id: member.id, fullName: member.fullName, username: member.username }
}

/** `memberCreator` / `member` on actions [CAP]. */
export function memberCreatorJson(member: Member): Record<string, unknown> {
  return {
    id: member.id,
    activityBlocked: false,
    avatarHash: null,
    avatarUrl: null,
    fullName: member.fullName,
    idMemberReferrer: null,
    initials: member.initials,
    nonPublic: {},
    nonPublicAvailable: true,
    username: member.username,
  }
}

/** The full member object. `email` is shown only to the member themself, with the `account` scope. */
export function memberJson(
  member: Member,
  store: TrelloStore,
  viewer: { idMember: string; account: boolean },
): Record<string, unknown> {
  const self = viewer.idMember === member.id
  const boards = store.boardsOf(member.id).filter((b) => self || b.memberships.has(viewer.idMember))
  return {
    id: member.id,
    activityBlocked: false,
    avatarHash: null,
    avatarUrl: null,
    bio: '',
    bioData: { emoji: {} },
    confirmed: true,
    fullName: member.fullName,
    idEnterprise: null,
    idMemberReferrer: null,
    idPremOrgsAdmin: [],
    initials: member.initials,
    memberType: 'normal',
    nonPublic: {},
    nonPublicAvailable: true,
    products: [],
    url: `${TRELLO_WEB}/${member.username}`,
    username: member.username,
    status: 'disconnected',
    email: self && viewer.account ? member.email : null,
    idBoards: boards.map((b) => b.id),
    idOrganizations: [],
  }
}

function labelNames(board: Board, store: TrelloStore): Record<string, string> {
  const names: Record<string, string> = {}
  for (const color of LABEL_COLORS) names[color] = ''
  for (const label of store.labelsOf(board.id)) {
    if (label.color && names[label.color] === '') names[label.color] = label.name
  }
  return names
}

/** `memberships` is not a default board field (the captured webhook `model` has none). */
export function boardJson(
  board: Board,
  store: TrelloStore,
  options: { memberships?: boolean } = {},
): Record<string, unknown> {
  const json: Record<string, unknown> = {
    id: board.id,
    name: board.name,
    desc: board.desc,
    descData: { emoji: {} },
    closed: board.closed,
    dateClosed: null,
    idOrganization: null,
    idEnterprise: null,
    pinned: false,
    starred: false,
    url: `${TRELLO_WEB}/b/${board.shortLink}/${slug(board.name)}`,
    shortUrl: `${TRELLO_WEB}/b/${board.shortLink}`,
    shortLink: board.shortLink,
    subscribed: false,
    prefs: {
      permissionLevel: board.permissionLevel,
      hideVotes: false,
      voting: 'disabled',
      comments: 'members',
      invitations: 'members',
      selfJoin: true,
      cardCovers: true,
      isTemplate: false,
      cardAging: 'regular',
      calendarFeedEnabled: false,
      background: 'blue',
      backgroundColor: '#0079BF',
      backgroundImage: null,
      backgroundImageScaled: null,
      backgroundTile: false,
      backgroundBrightness: 'dark',
      backgroundBottomColor: '#0079BF',
      backgroundTopColor: '#0079BF',
      canBePublic: true,
      canBeEnterprise: true,
      canBeOrg: true,
      canBePrivate: true,
      canInvite: true,
    },
    labelNames: labelNames(board, store),
    powerUps: [],
    dateLastActivity: iso(board.dateLastActivity),
    dateLastView: iso(board.dateLastActivity),
    idTags: [],
    idMemberCreator: board.idMemberCreator,
  }
  if (options.memberships) {
    json.memberships = [...board.memberships.entries()].map(([idMember, m]) => ({
      id: m.id,
      idMember,
      memberType: m.memberType,
      unconfirmed: false,
      deactivated: false,
    }))
  }
  return json
}

export function listJson(list: List): Record<string, unknown> {
  return {
    id: list.id,
    name: list.name,
    closed: list.closed,
    color: null,
    idBoard: list.idBoard,
    pos: list.pos,
    subscribed: false,
    softLimit: null,
    type: null,
  }
}

export function labelJson(label: Label, store: TrelloStore): Record<string, unknown> {
  let uses = 0
  for (const card of store.cards.values()) if (card.idLabels.includes(label.id)) uses += 1
  return { id: label.id, idBoard: label.idBoard, name: label.name, color: label.color, uses }
}

export function checkItemJson(item: CheckItem): Record<string, unknown> {
  return {
    id: item.id,
    name: item.name,
    nameData: { emoji: {} },
    pos: item.pos,
    due: isoOrNull(item.due),
    dueReminder: item.dueReminder,
    idMember: item.idMember,
    idChecklist: item.idChecklist,
    state: item.state,
  }
}

export function checklistJson(checklist: Checklist): Record<string, unknown> {
  return {
    id: checklist.id,
    name: checklist.name,
    idBoard: checklist.idBoard,
    idCard: checklist.idCard,
    pos: checklist.pos,
    checkItems: [...checklist.checkItems].sort((a, b) => a.pos - b.pos).map(checkItemJson),
  }
}

export function attachmentJson(attachment: Attachment): Record<string, unknown> {
  return {
    id: attachment.id,
    bytes: null,
    date: iso(attachment.date),
    edgeColor: null,
    idMember: attachment.idMember,
    isUpload: false,
    mimeType: attachment.mimeType,
    name: attachment.name,
    previews: [],
    url: attachment.url,
    pos: attachment.pos,
    fileName: null,
  }
}

export function cardJson(card: Card, store: TrelloStore): Record<string, unknown> {
  const checklists = store.checklistsOf(card.id)
  const items = checklists.flatMap((c) => c.checkItems)
  const checked = items.filter((i) => i.state === 'complete')
  // Only open items count towards the badge's earliest due date [UNV: Trello does not document it].
  const openDues = items.filter((i) => i.state === 'incomplete' && i.due !== null).map((i) => i.due as number)
  const labels = card.idLabels.map((id) => store.labels.get(id)).filter((l): l is Label => l !== undefined)
  return {
    id: card.id,
    badges: {
      attachmentsByType: { trello: { board: 0, card: 0 } },
      location: false,
      votes: 0,
      viewingMemberVoted: false,
      subscribed: false,
      fogbugz: '',
      checkItems: items.length,
      checkItemsChecked: checked.length,
      checkItemsEarliestDue: openDues.length > 0 ? iso(Math.min(...openDues)) : null,
      comments: card.comments,
      attachments: card.attachments.length,
      description: card.desc !== '',
      due: isoOrNull(card.due),
      dueComplete: card.dueComplete,
      start: isoOrNull(card.start),
    },
    checkItemStates: checked.map((i) => ({ idCheckItem: i.id, state: 'complete' })),
    closed: card.closed,
    dueComplete: card.dueComplete,
    dateLastActivity: iso(card.dateLastActivity),
    desc: card.desc,
    descData: { emoji: {} },
    due: isoOrNull(card.due),
    dueReminder: null,
    email: null,
    idBoard: card.idBoard,
    idChecklists: checklists.map((c) => c.id),
    idList: card.idList,
    idMembers: [...card.idMembers],
    idMembersVoted: [],
    idShort: card.idShort,
    idAttachmentCover: null,
    labels: labels.map((l) => ({ id: l.id, idBoard: l.idBoard, name: l.name, color: l.color })),
    idLabels: [...card.idLabels],
    manualCoverAttachment: false,
    name: card.name,
    pos: card.pos,
    shortLink: card.shortLink,
    shortUrl: `${TRELLO_WEB}/c/${card.shortLink}`,
    start: isoOrNull(card.start),
    subscribed: false,
    url: `${TRELLO_WEB}/c/${card.shortLink}/${card.idShort}-${slug(card.name)}`,
    cover: {
      idAttachment: null,
      color: null,
      idUploadedBackground: null,
      size: 'normal',
      brightness: 'dark',
      idPlugin: null,
    },
    isTemplate: false,
    cardRole: null,
  }
}

/** Reaction limits as captured on a commentCard action [CAP ReturnValueFromAddComment.json]. */
const COMMENT_LIMITS = {
  reactions: {
    perAction: { status: 'ok', disableAt: 900, warnAt: 720 },
    uniquePerAction: { status: 'ok', disableAt: 17, warnAt: 14 },
  },
}

export function actionJson(
  action: Action,
  store: TrelloStore,
  options: { memberCreator?: boolean } = {},
): Record<string, unknown> {
  const creator = store.members.get(action.idMemberCreator)
  const json: Record<string, unknown> = {
    id: action.id,
    idMemberCreator: action.idMemberCreator,
    data: action.data,
    appCreator: action.appCreator,
    type: action.type,
    date: iso(action.date),
    limits: action.type === 'commentCard' ? COMMENT_LIMITS : null,
    display: { translationKey: action.translationKey, entities: action.entities },
  }
  const member = action.idMember ? store.members.get(action.idMember) : undefined
  if (member) json.member = memberCreatorJson(member)
  if (options.memberCreator !== false && creator) json.memberCreator = memberCreatorJson(creator)
  return json
}

export function notificationJson(notification: Notification, store: TrelloStore): Record<string, unknown> {
  const creator = store.members.get(notification.idMemberCreator)
  return {
    id: notification.id,
    unread: notification.unread,
    type: notification.type,
    date: iso(notification.date),
    dateRead: isoOrNull(notification.dateRead),
    data: notification.data,
    appCreator: notification.appCreator,
    idMemberCreator: notification.idMemberCreator,
    idAction: notification.idAction,
    reactions: [],
    memberCreator: creator ? memberCreatorJson(creator) : null,
  }
}

/** [CAP ListOfWebhooks.json] */
export function webhookJson(webhook: Webhook): Record<string, unknown> {
  return {
    id: webhook.id,
    description: webhook.description,
    idModel: webhook.idModel,
    callbackURL: webhook.callbackURL,
    active: webhook.active,
    consecutiveFailures: webhook.consecutiveFailures,
    firstConsecutiveFailDate: isoOrNull(webhook.firstConsecutiveFailDate),
  }
}

/** Control-API view of an app: the key and the secret (the sandbox has nothing to hide here). */
export function appJson(app: App, store: TrelloStore): Record<string, unknown> {
  return {
    id: app.id,
    name: app.name,
    key: app.key,
    secret: app.secret,
    owner: app.idMemberOwner ? (store.members.get(app.idMemberOwner)?.username ?? null) : null,
    allowed_origins: [...app.allowedOrigins],
  }
}
