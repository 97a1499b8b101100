import { z } from 'zod'
import { defineTrigger, type EventCandidate, type TriggerEvent } from '../../../core/triggers/define.ts'
import { cardOptions, listOptions } from '../options.ts'
import { trelloId } from '../schemas.ts'
import { ACTION_TYPES, actionOf, candidateOf, changedFields, isAction, type TrelloAction } from './actions.ts'
import { boardTrigger, IdLists, newestFirst, RECENT_LIMIT, type BoardConfig } from './board-trigger.ts'
import { actionEvent, BoardRef, baseEvent, SAMPLE, sampleAction, stubOf } from './event.ts'

/** Board-wide triggers: labels, new boards, any activity, and the filtered custom one (docs/triggers/trello.md). */

const Data = z
  .record(z.string(), z.unknown())
  .describe("The action's own data, as Trello sent it (stubs of the board, list, card and more)")

export const newLabelCreated = boardTrigger({
  id: 'trello.new_label_created',
  title: 'New Label Created',
  description: 'Starts when a label is created on one of the chosen boards.',
  types: ['createLabel'],
  accept: (action) => {
    const label = stubOf(action.data.label, ['name', 'color'])
    return label ? { label } : null
  },
  event: {
    label: z.object({ id: z.string(), name: z.string().optional(), color: z.string().nullable().optional() }),
  },
  sample: sampleAction('createLabel', {
    label: { id: '63d128782f36f2348afaf030', name: 'Customer', color: 'purple' },
    board: SAMPLE.board,
  }),
})

/** Action types as a config field takes them: Trello's own names, each checked. */
const ActionType = z.enum(ACTION_TYPES, {
  error: 'must be a Trello action type such as createCard, updateCard or commentCard',
})

export const newBoardActivity = boardTrigger({
  id: 'trello.new_board_activity',
  title: 'New Board Activity',
  description:
    'Starts on any activity on the chosen boards, or only on the activity types chosen (several can be watched together).',
  types: (config) => (config.activity_types?.length ? config.activity_types : ACTION_TYPES),
  config: {
    activity_types: z
      .array(ActionType, { error: 'must be a list of Trello action types' })
      .max(ACTION_TYPES.length)
      .optional()
      .describe(
        'Only these action types (createCard, commentCard, updateList...); every activity when empty',
      ),
  },
  accept: (action) => ({ data: action.data }),
  event: { data: Data },
  sample: sampleAction('createList', {
    list: { id: '63d128787441d05619f44dd0', name: 'Blocked' },
    board: SAMPLE.board,
  }),
})

/**
 * The kinds of event Custom Webhook Events filters on, from the action type's verb: an action may be
 * of several kinds (a move is an update; an archive too).
 */
export const EVENT_KINDS = [
  'create',
  'update',
  'delete',
  'add',
  'remove',
  'comment',
  'move',
  'archive',
] as const
export type EventKind = (typeof EVENT_KINDS)[number]

export function kindsOf(action: TrelloAction): EventKind[] {
  const { type } = action
  const kinds: EventKind[] = []
  if (/^(create|copy|convertTo|email)/.test(type)) kinds.push('create')
  if (type.startsWith('update')) kinds.push('update')
  if (type.startsWith('delete')) kinds.push('delete')
  if (type.startsWith('add')) kinds.push('add')
  if (type.startsWith('remove')) kinds.push('remove')
  if (/Comment/.test(type) || type === 'commentCard') kinds.push('comment')
  if (type.startsWith('move') || (type === 'updateCard' && changedFields(action).includes('idList')))
    kinds.push('move')
  if (
    action.data.old?.closed === false &&
    (action.data.card?.closed === true ||
      (action.data.list as { closed?: boolean } | undefined)?.closed === true)
  )
    kinds.push('archive')
  return kinds
}

const stubIds = (action: TrelloAction, keys: Array<'list' | 'listBefore' | 'listAfter'>) =>
  keys.map((key) => action.data[key]?.id).filter((id): id is string => typeof id === 'string')

export const customWebhookEvents = boardTrigger({
  id: 'trello.custom_webhook_events',
  title: 'Custom Webhook Events',
  description:
    'Starts on events that pass every filter given: the boards, the kinds of event (create, update, delete, add, remove, comment, move, archive), the lists and the cards.',
  types: ACTION_TYPES,
  config: {
    event_types: z
      .array(z.enum(EVENT_KINDS, { error: `must be one of ${EVENT_KINDS.join(', ')}` }), {
        error: 'must be a list of event kinds',
      })
      .optional()
      .describe('Only events of these kinds; every kind when empty'),
    list_ids: IdLists.optional().describe(
      'Only events in these lists (a card moved into or out of one counts); every list when empty',
    ),
    card_ids: z
      .array(trelloId('card'), { error: 'must be a list of card ids' })
      .max(100)
      .optional()
      .describe('Only events about these cards; every card when empty'),
  },
  configOptions: { list_ids: listOptions, card_ids: cardOptions },
  accept(action, config: BoardConfig) {
    const kinds = kindsOf(action)
    if (config.event_types?.length && !kinds.some((k) => (config.event_types as string[]).includes(k)))
      return null
    if (
      config.list_ids?.length &&
      !stubIds(action, ['list', 'listBefore', 'listAfter']).some((id) =>
        (config.list_ids as string[]).includes(id),
      )
    )
      return null
    if (config.card_ids?.length && !(config.card_ids as string[]).includes(action.data.card?.id ?? ''))
      return null
    return { kinds, data: action.data }
  },
  event: { kinds: z.array(z.enum(EVENT_KINDS)).describe('The kinds this event is of'), data: Data },
  sample: sampleAction('updateCard', {
    card: { ...SAMPLE.card, idList: SAMPLE.list.id },
    old: { idList: SAMPLE.listBefore.id },
    board: SAMPLE.board,
    listBefore: SAMPLE.listBefore,
    listAfter: SAMPLE.list,
  }),
})

/**
 * The model New Board watches: the connected member. Trello webhooks can watch a member (sources:
 * Trello actions and webhooks), and a member's webhook hears what that member does, boards they
 * create included; the webhook facet turns `me` into the member's id.
 */
export const MEMBER_MODEL = 'me'
const BOARD_CREATED = ['createBoard', 'copyBoard']

const matchNewBoard = (candidate: EventCandidate) => {
  const action = actionOf(candidate)
  if (!action || !BOARD_CREATED.includes(action.type) || !action.data.board) return null
  return baseEvent(action)
}

const newBoardSample = matchNewBoard(
  candidateOf(sampleAction('createBoard', { board: { ...SAMPLE.board, name: 'Q3 Launch' } })),
)

export const newBoard = defineTrigger({
  id: 'trello.new_board',
  title: 'New Board',
  description: 'Starts when the connected Trello member creates (or copies) a board, in any workspace.',
  mode: 'instant',
  config: z.object({}),
  event: actionEvent({ board: BoardRef.describe('The new board') }),
  sample: newBoardSample!,
  models: () => [MEMBER_MODEL],
  match: (candidate) => matchNewBoard(candidate),
  async recent(ctx) {
    const actions: unknown[] = await ctx.api.get('/1/members/me/actions', {
      filter: BOARD_CREATED.join(','),
      limit: RECENT_LIMIT,
    })
    return actions
      .filter(isAction)
      .map((a) => matchNewBoard(candidateOf(a)))
      .filter((e): e is TriggerEvent => e !== null)
      .sort(newestFirst)
  },
})
