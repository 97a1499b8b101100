import { z } from 'zod'
import { listOptions } from '../options.ts'
import { changedFields, type TrelloAction } from './actions.ts'
import { boardTrigger, IdLists, type BoardConfig } from './board-trigger.ts'
import { ListRef, SAMPLE, sampleAction, stubOf } from './event.ts'

/** Card triggers: created, updated, moved, archived (docs/triggers/trello.md). */

/** Ways a card is made: created, copied, converted from a check item, mailed to the board. */
const CARD_CREATED = ['createCard', 'copyCard', 'convertToCardFromCheckItem', 'emailCard']

/**
 * Changes to a card's properties. `updateCard` carries the changed fields in `data.old` (name, desc,
 * due, idList, closed, idLabels...); attachments, members and checklists have their own actions and
 * no `updateCard`. Labels do give an `updateCard` (idLabels) besides `addLabelToCard`, so the label
 * actions are left out here: one label change fires Card Updated once (sources: Trello actions and webhooks).
 */
const CARD_PROPERTY_ACTIONS: Record<string, string> = {
  addAttachmentToCard: 'attachments',
  deleteAttachmentFromCard: 'attachments',
  addMemberToCard: 'idMembers',
  removeMemberFromCard: 'idMembers',
  addChecklistToCard: 'idChecklists',
  removeChecklistFromCard: 'idChecklists',
}

const inLists = (config: BoardConfig, list: { id: string } | undefined) =>
  !config.list_ids?.length || (list !== undefined && (config.list_ids as string[]).includes(list.id))

const OnlyLists = (what: string) => IdLists.optional().describe(what)

export const newCard = boardTrigger({
  id: 'trello.new_card',
  title: 'New Card',
  description:
    'Starts when a card is created on one of the chosen boards (also copied, converted from a check item or mailed in), optionally only in some lists.',
  types: CARD_CREATED,
  config: { list_ids: OnlyLists('Only cards created in these lists; all lists when empty') },
  configOptions: { list_ids: listOptions },
  accept: (action, config) => (inLists(config, action.data.list) ? {} : null),
  sample: sampleAction('createCard', { board: SAMPLE.board, list: SAMPLE.list, card: SAMPLE.card }),
})

function cardChange(action: TrelloAction): Record<string, unknown> | null {
  if (action.type === 'updateCard') {
    const changed = changedFields(action)
    return changed.length > 0 ? { changed, old: action.data.old } : null
  }
  const field = CARD_PROPERTY_ACTIONS[action.type]
  return field ? { changed: [field], old: {} } : null
}

export const cardUpdated = boardTrigger({
  id: 'trello.card_updated',
  title: 'Card Updated',
  description:
    'Starts when anything about a card changes on one of the chosen boards: name, description, dates, list (a move), labels, members, attachments, checklists, archiving.',
  types: ['updateCard', ...Object.keys(CARD_PROPERTY_ACTIONS)],
  accept: cardChange,
  event: {
    changed: z
      .array(z.string())
      .describe(
        "The card fields that changed, in Trello's names (name, desc, due, idList, closed, idLabels, attachments...)",
      ),
    old: z.record(z.string(), z.unknown()).describe('Their values before the change, where Trello says'),
  },
  sample: sampleAction('updateCard', {
    card: { ...SAMPLE.card, name: 'Fix the login page for Safari' },
    old: { name: SAMPLE.card.name },
    board: SAMPLE.board,
    list: SAMPLE.list,
  }),
})

export const cardMoved = boardTrigger({
  id: 'trello.card_moved',
  title: 'Card Moved',
  description:
    'Starts when a card moves from one list to another on one of the chosen boards, optionally only into some lists.',
  types: ['updateCard'],
  config: { list_ids: OnlyLists('Only moves into these lists; all lists when empty') },
  configOptions: { list_ids: listOptions },
  accept(action, config) {
    const { listBefore, listAfter } = action.data
    if (!changedFields(action).includes('idList') || !listAfter || !inLists(config, listAfter)) return null
    return { listBefore: stubOf(listBefore, ['name']), listAfter: stubOf(listAfter, ['name']) }
  },
  event: {
    listBefore: ListRef.optional().describe('The list the card left'),
    listAfter: ListRef.describe('The list the card is in now'),
  },
  sample: sampleAction('updateCard', {
    card: { ...SAMPLE.card, idList: SAMPLE.list.id },
    old: { idList: SAMPLE.listBefore.id },
    board: SAMPLE.board,
    listBefore: SAMPLE.listBefore,
    listAfter: SAMPLE.list,
  }),
})

export const cardArchived = boardTrigger({
  id: 'trello.card_archived',
  title: 'Card Archived',
  description:
    'Starts when a card is archived on one of the chosen boards (not when it is sent back to the board).',
  types: ['updateCard'],
  accept: (action) => (action.data.old?.closed === false && action.data.card?.closed === true ? {} : null),
  sample: sampleAction('updateCard', {
    card: { ...SAMPLE.card, closed: true },
    old: { closed: false },
    board: SAMPLE.board,
    list: SAMPLE.list,
  }),
})
