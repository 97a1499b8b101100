import { z } from 'zod'
import type { TriggerEvent } from '../../../core/triggers/define.ts'
import { listOf, type Stub, type TrelloAction } from './actions.ts'

/**
 * The normalised event every action-based Trello trigger emits: what happened, on which board, list
 * and card, and who did it; each trigger adds its own fields (a comment's text, a label, the lists
 * before and after a move). Mappings read these names (docs/triggers/trello.md).
 */

export const ActionRef = z.object({
  id: z.string().describe('The Trello action id: unique per event'),
  type: z.string().describe('The Trello action type, such as createCard or updateCard'),
  date: z.string().describe('When it happened (ISO 8601)'),
})
export const BoardRef = z.object({
  id: z.string(),
  name: z.string().optional(),
  shortLink: z.string().optional(),
})
export const ListRef = z.object({ id: z.string(), name: z.string().optional() })
export const CardRef = z.object({
  id: z.string(),
  name: z.string().optional(),
  shortLink: z.string().optional(),
  idShort: z.number().optional(),
})
export const MemberRef = z
  .object({
    id: z.string(),
    username: z.string().optional(),
    fullName: z.string().optional(),
  })
  .describe('Who acted')

/** The event fields every action-based trigger has; `card` and `list` where the action is about a card. */
export const actionEvent = <S extends z.core.$ZodLooseShape>(extra: S) =>
  z.object({
    action: ActionRef,
    board: BoardRef.optional(),
    list: ListRef.optional(),
    card: CardRef.optional(),
    member: MemberRef,
    ...extra,
  })

const pick = (stub: Stub | undefined, keys: string[]): Record<string, unknown> | undefined => {
  if (!stub) return undefined
  const out: Record<string, unknown> = {}
  for (const key of ['id', ...keys]) if (stub[key] !== undefined) out[key] = stub[key]
  return out
}

/** The common part of an action's event. */
export function baseEvent(action: TrelloAction): TriggerEvent {
  // Every stub is checked: a delivery's body is only as well-formed as its sender made it.
  const event: TriggerEvent = {
    action: { id: action.id, type: action.type, date: action.date },
    member: stubOf(action.memberCreator, ['username', 'fullName']) ?? { id: action.idMemberCreator },
  }
  const board = stubOf(action.data.board, ['name', 'shortLink'])
  const list = stubOf(listOf(action), ['name'])
  const card = stubOf(action.data.card, ['name', 'shortLink', 'idShort'])
  if (board) event.board = board
  if (list) event.list = list
  if (card) event.card = card
  return event
}

/** A stub with the given keys, or undefined: for trigger-specific fields (label, checklist...). */
export const stubOf = (value: unknown, keys: string[]): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && typeof (value as Stub).id === 'string'
    ? pick(value as Stub, keys)
    : undefined

/** Realistic stubs for samples (the shapes of the captured deliveries, docs/triggers/trello.md). */
export const SAMPLE = {
  board: { id: '63d128787441d05619f44dbe', name: 'Product Development', shortLink: 'SCPjg8ON' },
  list: { id: '63d128787441d05619f44dc6', name: 'Doing' },
  listBefore: { id: '63d9942f12260e27b257d067', name: 'To Do' },
  card: { id: '63d387e699609c7f4bf0e0ce', name: 'Fix the login page', idShort: 12, shortLink: 'Yd9ScoJS' },
  member: { id: '5f2b8c0e9d1a4b3c2d1e0f9a', username: 'rasmus', fullName: 'Rasmus Berg' },
}

/** A sample action of the given type and data, made by SAMPLE.member. */
export function sampleAction(
  type: string,
  data: Record<string, unknown>,
  id = '63e2af230b9295aa94254801',
): TrelloAction {
  return {
    id,
    type,
    date: '2026-03-02T09:30:00.000Z',
    idMemberCreator: SAMPLE.member.id,
    data,
    memberCreator: SAMPLE.member,
  }
}
