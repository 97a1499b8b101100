import { actionFilter } from '../actions.ts'
import type { ApiContext } from '../context.ts'
import { fail, invalidValue } from '../errors.ts'
import { pickFields } from '../fields.ts'
import { OBJECT_ID } from '../ids.ts'
import type { Action, Board, Card, Checklist, Member } from '../model.ts'
import {
  actionJson,
  attachmentJson,
  cardJson,
  checkItemJson,
  checklistJson,
  memberMiniJson,
} from '../presenters.ts'

/** Shared pieces of the route modules: list arguments, nested resources, card views. */

export const MAX_LIMIT = 1000
export const DEFAULT_ACTIONS_LIMIT = 50

/** A required or optional string argument with Trello's length bound (16384 for texts). */
export function text(
  ctx: ApiContext,
  name: string,
  options: { required?: boolean; max?: number; allowEmpty?: boolean } = {},
): string | undefined {
  const value = ctx.params.string(name)
  if (value === undefined) return options.required ? fail(invalidValue(name)) : undefined
  if ((!options.allowEmpty && value.trim() === '') || value.length > (options.max ?? 16384))
    return fail(invalidValue(name))
  return value
}

/** `before` / `since`: an action id (compared as ObjectIds, which sort by time) or a date. */
function bound(value: string | undefined, name: string): ((a: Action) => number) | undefined {
  if (value === undefined || value === '' || value === 'null') return undefined
  if (OBJECT_ID.test(value)) return (a) => (a.id < value ? -1 : a.id > value ? 1 : 0)
  const ms = Date.parse(value)
  if (Number.isNaN(ms)) return fail(invalidValue(name))
  return (a) => a.date - ms
}

export interface ActionListNames {
  filter: string
  limit: string
  fields: string
  defaultFilter: string
  /** Nested lists (`?actions=` on a board or card) take no paging arguments. */
  nested?: boolean
}

export const TOP_LEVEL_ACTIONS = (defaultFilter: string): ActionListNames => ({
  filter: 'filter',
  limit: 'limit',
  fields: 'fields',
  defaultFilter,
})
export const NESTED_ACTIONS: ActionListNames = {
  filter: 'actions',
  limit: 'actions_limit',
  fields: 'action_fields',
  defaultFilter: 'all',
  nested: true,
}

/** An action list, newest first: `filter`, `limit` (0–1000, default 50), `page`, `before`, `since`, `fields`. */
export function actionList(
  ctx: ApiContext,
  actions: Action[],
  names: ActionListNames,
): Record<string, unknown>[] {
  const { params } = ctx
  const matches = actionFilter(params.string(names.filter), names.defaultFilter)
  const limit = params.int(names.limit, DEFAULT_ACTIONS_LIMIT, 0, MAX_LIMIT)
  const page = names.nested ? 0 : params.int('page', 0, 0, MAX_LIMIT)
  // T-ARCH: "page * limit must be less than 1000".
  if (page > 0 && page * limit >= MAX_LIMIT) return fail(invalidValue('page'))
  const before = names.nested ? undefined : bound(params.string('before'), 'before')
  const since = names.nested ? undefined : bound(params.string('since'), 'since')
  const withCreator = names.nested ? true : params.bool('memberCreator') !== false
  const fields = params.string(names.fields)
  return actions
    .filter((a) => matches(a) && (!before || before(a) < 0) && (!since || since(a) > 0))
    .sort((a, b) => b.date - a.date || (a.id < b.id ? 1 : -1))
    .slice(page * limit, page * limit + limit)
    .map((a) => pickFields(actionJson(a, ctx.store, { memberCreator: withCreator }), fields))
}

export const boardActions = (ctx: ApiContext, board: Board) =>
  ctx.store.actions.filter((a) => (a.data.board as { id?: string } | undefined)?.id === board.id)
export const cardActions = (ctx: ApiContext, card: Card) =>
  ctx.store.actions.filter((a) => (a.data.card as { id?: string } | undefined)?.id === card.id)

/** Card filters: `open` (default), `closed`, `all`, `visible` (open cards in open lists), `none`. */
export function filterCards(
  ctx: ApiContext,
  cards: Card[],
  filter: string | undefined,
  name: string,
): Card[] {
  switch (filter ?? 'open') {
    case 'open':
      return cards.filter((c) => !c.closed)
    case 'visible':
      return cards.filter((c) => !c.closed && ctx.store.lists.get(c.idList)?.closed === false)
    case 'closed':
      return cards.filter((c) => c.closed)
    case 'all':
      return cards
    case 'none':
      return []
    default:
      return fail(invalidValue(name))
  }
}

export function filterOpenClosed<T extends { closed: boolean }>(
  items: T[],
  filter: string | undefined,
  name: string,
  fallback = 'open',
): T[] {
  switch (filter ?? fallback) {
    case 'open':
      return items.filter((i) => !i.closed)
    case 'closed':
      return items.filter((i) => i.closed)
    case 'all':
      return items
    case 'none':
      return []
    default:
      return fail(invalidValue(name))
  }
}

export function membersJson(
  ctx: ApiContext,
  members: Member[],
  fieldsName = 'fields',
): Record<string, unknown>[] {
  const fields = ctx.params.string(fieldsName)
  return members.map((m) =>
    fields
      ? pickFields(
          { ...memberMiniJson(m), initials: m.initials, url: `https://trello.com/${m.username}` },
          fields,
        )
      : memberMiniJson(m),
  )
}

export function checklistView(ctx: ApiContext, checklist: Checklist, prefix = ''): Record<string, unknown> {
  const json = checklistJson(checklist)
  const items = ctx.params.string(`${prefix}checkItems`)
  if (items === 'none') delete json.checkItems
  else if (items !== undefined && items !== 'all') return fail(invalidValue(`${prefix}checkItems`))
  const itemFields = ctx.params.string(`${prefix}checkItem_fields`)
  if (itemFields && json.checkItems)
    json.checkItems = checklist.checkItems.map((i) => pickFields(checkItemJson(i), itemFields))
  return pickFields(json, ctx.params.string(prefix ? `${prefix}checklist_fields` : 'fields'), [
    'id',
    'checkItems',
  ])
}

/**
 * A card with the nested arguments Trello offers on card lists and `GET /1/cards/{id}`:
 * `members`, `attachments`, `checklists`, `{prefix}fields`.
 */
export function cardView(
  ctx: ApiContext,
  card: Card,
  fieldsName: string,
  nestedPrefix = '',
): Record<string, unknown> {
  const { params, store } = ctx
  const json = pickFields(cardJson(card, store), params.string(fieldsName))
  const members = params.string(`${nestedPrefix}members`)
  if (members === 'true' || (nestedPrefix === '' && members === 'all')) {
    json.members = membersJson(
      ctx,
      card.idMembers.map((id) => store.members.get(id)).filter((m): m is Member => m !== undefined),
      `${nestedPrefix === '' ? 'member_fields' : `${nestedPrefix}member_fields`}`,
    )
  }
  const attachments = params.string(`${nestedPrefix}attachments`)
  if (attachments === 'true') json.attachments = card.attachments.map(attachmentJson)
  const checklists = params.string(`${nestedPrefix}checklists`)
  if (checklists === 'all') json.checklists = store.checklistsOf(card.id).map((c) => checklistJson(c))
  return json
}
