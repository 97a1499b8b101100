import type { EventCandidate } from '../../../core/triggers/define.ts'

/**
 * Trello actions as webhooks deliver them and `/actions` lists answer them (docs/triggers/trello.md,
 * "Facts"): `{id, type, date, idMemberCreator, data, memberCreator}`, with `data` holding stubs of
 * the board, list, card and whatever else the action is about.
 */
export interface Stub {
  id: string
  name?: string
  shortLink?: string
  idShort?: number
  [key: string]: unknown
}

export interface TrelloAction {
  id: string
  type: string
  date: string
  idMemberCreator: string
  data: Record<string, unknown> & {
    board?: Stub
    list?: Stub
    listBefore?: Stub
    listAfter?: Stub
    card?: Stub & { closed?: boolean }
    old?: Record<string, unknown>
  }
  memberCreator?: { id: string; username?: string; fullName?: string }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export function isStub(value: unknown): value is Stub {
  return isObject(value) && typeof value.id === 'string'
}

/** Whether a value has the parts of an action every trigger reads. */
export function isAction(value: unknown): value is TrelloAction {
  return (
    isObject(value) &&
    typeof value.id === 'string' &&
    typeof value.type === 'string' &&
    typeof value.date === 'string' &&
    typeof value.idMemberCreator === 'string' &&
    isObject(value.data)
  )
}

/** The action inside a candidate (`raw` is the delivery's `{action, model}`), or null when it is not one. */
export function actionOf(candidate: EventCandidate): TrelloAction | null {
  const raw = candidate.raw
  const action = isObject(raw) ? raw.action : undefined
  return isAction(action) ? action : null
}

/** A candidate made from an action read back from `/actions`: the same shape a delivery gives. */
export function candidateOf(action: TrelloAction): EventCandidate {
  return {
    dedupeKey: action.id,
    type: action.type,
    raw: { action, model: null },
    actorId: action.idMemberCreator,
  }
}

/** The fields an `updateCard` changed (the keys of `data.old`). */
export function changedFields(action: TrelloAction): string[] {
  return isObject(action.data.old) ? Object.keys(action.data.old) : []
}

/** The list a card action happened in: its list, or the list it moved to. */
export function listOf(action: TrelloAction): Stub | undefined {
  return action.data.list ?? action.data.listAfter
}

/**
 * Every action type Trello documents (sources: Trello actions and webhooks, T-ARCH action.html), plus
 * the ones seen only in deliveries (createCheckItem, updateComment, deleteComment, ...).
 */
export const ACTION_TYPES = [
  'addAdminToBoard',
  'addAdminToOrganization',
  'addAttachmentToCard',
  'addBoardsPinnedToMember',
  'addChecklistToCard',
  'addLabelToCard',
  'addMemberToBoard',
  'addMemberToCard',
  'addMemberToOrganization',
  'addToOrganizationBoard',
  'commentCard',
  'convertToCardFromCheckItem',
  'copyBoard',
  'copyCard',
  'copyChecklist',
  'copyCommentCard',
  'createBoard',
  'createBoardInvitation',
  'createBoardPreference',
  'createCard',
  'createCheckItem',
  'createChecklist',
  'createLabel',
  'createList',
  'createOrganization',
  'createOrganizationInvitation',
  'deleteAttachmentFromCard',
  'deleteBoardInvitation',
  'deleteCard',
  'deleteCheckItem',
  'deleteComment',
  'deleteLabel',
  'deleteOrganizationInvitation',
  'disablePlugin',
  'disablePowerUp',
  'emailCard',
  'enablePlugin',
  'enablePowerUp',
  'makeAdminOfBoard',
  'makeAdminOfOrganization',
  'makeNormalMemberOfBoard',
  'makeNormalMemberOfOrganization',
  'makeObserverOfBoard',
  'memberJoinedTrello',
  'moveCardFromBoard',
  'moveCardToBoard',
  'moveListFromBoard',
  'moveListToBoard',
  'removeAdminFromBoard',
  'removeAdminFromOrganization',
  'removeBoardsPinnedFromMember',
  'removeChecklistFromCard',
  'removeFromOrganizationBoard',
  'removeLabelFromCard',
  'removeMemberFromBoard',
  'removeMemberFromCard',
  'removeMemberFromOrganization',
  'unconfirmedBoardInvitation',
  'unconfirmedOrganizationInvitation',
  'updateBoard',
  'updateCard',
  'updateCheckItem',
  'updateCheckItemStateOnCard',
  'updateChecklist',
  'updateComment',
  'updateLabel',
  'updateList',
  'updateMember',
  'updateOrganization',
  'voteOnCard',
] as const
