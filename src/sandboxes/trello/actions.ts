import type { Actor } from './context.ts'
import type { Action, DisplayEntity } from './model.ts'
import { notifyFor } from './notifications.ts'
import type { TrelloSandbox } from './sandbox.ts'
import { fanOut } from './webhooks/fanout.ts'

/**
 * Every change records an action (sources: Trello actions and webhooks catalogue), with `data` in the captured shapes
 * (T-DOTNET WebhookEvents, T-RBFIX), then notifies members and queues webhook deliveries.
 */
export interface ActionInput {
  type: string
  data: Record<string, unknown>
  translationKey: string
  /** The member the action is about (shown as `action.member`). */
  idMember?: string | null
  /** Models the action touches beyond those named in `data` (e.g. the card's list). */
  alsoTouches?: string[]
}

function isStub(
  value: unknown,
): value is { id: string; name?: string; shortLink?: string; username?: string } {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string'
}

/**
 * `display.entities`, built from the stubs in `data` as Trello's are [CAP]. A comment shows only
 * its card, in context: `{contextOn, card (hideIfContext), comment, memberCreator}`, with no list
 * although `data` has one [CAP: three captured commentCard actions, 2020-2021]. A label shows
 * `{type, color, text}` and no id, and label actions carry no comment even though their `data`
 * has a `text` [CAP addLabelToCard webhook, 2020].
 */
function entities(
  data: Record<string, unknown>,
  creator: { id: string; username: string; fullName: string },
  type: string,
): Record<string, DisplayEntity> {
  const isComment = type === 'commentCard'
  const out: Record<string, DisplayEntity> = {}
  if (isComment && isStub(data.card)) {
    out.contextOn = {
      type: 'translatable',
      translationKey: 'action_on',
      hideIfContext: true,
      idContext: data.card.id,
    }
  }
  for (const [key, value] of Object.entries(data)) {
    if (key === 'board' || key === 'old' || !isStub(value)) continue
    if (isComment && key !== 'card') continue
    if (key === 'label') {
      out.label = {
        type: 'label',
        color: (value as { color?: unknown }).color ?? null,
        text: value.name ?? '',
      }
      continue
    }
    const entityType = key === 'listBefore' || key === 'listAfter' ? 'list' : key
    const entity: DisplayEntity = isComment
      ? { type: entityType, hideIfContext: true, id: value.id }
      : { type: entityType, id: value.id }
    if (value.shortLink) entity.shortLink = value.shortLink
    entity.text = value.name ?? ''
    out[key] = entity
  }
  if (isComment && typeof data.text === 'string') out.comment = { type: 'comment', text: data.text }
  out.memberCreator = { type: 'member', id: creator.id, username: creator.username, text: creator.fullName }
  return out
}

function touchedIds(action: Pick<Action, 'data' | 'idMemberCreator' | 'idMember'>, also: string[]): string[] {
  const ids = new Set<string>([action.idMemberCreator, ...also])
  if (action.idMember) ids.add(action.idMember)
  for (const key of [
    'board',
    'boardSource',
    'boardTarget',
    'list',
    'listBefore',
    'listAfter',
    'card',
    'checklist',
    'label',
    'member',
  ]) {
    const value = action.data[key]
    if (isStub(value)) ids.add(value.id)
  }
  return [...ids]
}

/** The action record itself, without side effects (the seed builds its history with it). */
export function buildAction(
  id: string,
  date: number,
  actor: Pick<Actor, 'member' | 'app'>,
  input: ActionInput,
): Action {
  const partial = { data: input.data, idMemberCreator: actor.member.id, idMember: input.idMember ?? null }
  return {
    id,
    type: input.type,
    idMemberCreator: actor.member.id,
    date,
    data: input.data,
    appCreator: actor.app ? { id: actor.app.id } : null,
    translationKey: input.translationKey,
    entities: entities(input.data, actor.member, input.type),
    idMember: input.idMember ?? null,
    modelIds: touchedIds(partial, input.alsoTouches ?? []),
  }
}

export function recordAction(
  sb: TrelloSandbox,
  actor: Pick<Actor, 'member' | 'app'>,
  input: ActionInput,
): Action {
  const action = buildAction(sb.newId(), sb.now(), actor, input)
  sb.store.addAction(action)
  const boardId = (input.data.board as { id?: string } | undefined)?.id
  const board = boardId ? sb.store.boards.get(boardId) : undefined
  if (board) board.dateLastActivity = action.date
  notifyFor(sb, action)
  fanOut(sb, action)
  return action
}

/**
 * Types that reach webhooks but that Trello leaves out of nested `/actions` lists unless they
 * are asked for by name (sources: Trello actions and webhooks).
 */
export const WEBHOOK_ONLY_TYPES = new Set([
  'addLabelToCard',
  'createLabel',
  'createCheckItem',
  'createChecklist',
  'deleteCheckItem',
  'deleteComment',
  'deleteLabel',
  'removeLabelFromCard',
  'updateCheckItem',
  'updateComment',
  'updateLabel',
  'voteOnCard',
])

/**
 * An action `filter`: `all`, or type names, optionally narrowed to a changed field
 * (`updateCard:idList`, `updateCard:closed`), as Trello's filters are.
 */
export function actionFilter(filter: string | undefined, fallback: string): (action: Action) => boolean {
  const spec = (filter ?? fallback).trim()
  if (spec === 'all') return (a) => !WEBHOOK_ONLY_TYPES.has(a.type)
  const wanted = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return (action) =>
    wanted.some((entry) => {
      const [type, field] = entry.split(':')
      if (type !== action.type) return false
      if (!field) return true
      const old = action.data.old as Record<string, unknown> | undefined
      return old !== undefined && field in old
    })
}
