import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Card, commaSeparated, DateTimeInput, idArray, Name, Pos, Text, trelloId } from '../schemas.ts'
import { cardName, webUrl } from '../links.ts'
import {
  boardOptions,
  cardOptions,
  labelsOfCardBoardOptions,
  listsOfCardBoardOptions,
  membersOfCardBoardOptions,
} from '../options.ts'

const CHANGES = [
  'name',
  'desc',
  'due',
  'due_complete',
  'closed',
  'label_ids',
  'member_ids',
  'list_id',
  'board_id',
  'pos',
] as const

export const updateCard = defineTool({
  id: 'trello.update_card',
  title: 'Update Card',
  description:
    'Change a Trello card: rename it, edit its description, set or clear its due date, mark it complete, archive or restore it, replace its labels or members, reorder it, or move it to another list (of the same or another board).',
  effect: 'write',
  idempotent: true,
  options: {
    card_id: cardOptions,
    list_id: listsOfCardBoardOptions,
    board_id: boardOptions,
    label_ids: labelsOfCardBoardOptions,
    member_ids: membersOfCardBoardOptions,
  },
  input: z
    .object({
      card_id: trelloId('card').describe('The card to change'),
      name: Name.optional(),
      desc: Text.optional().describe('Description, in Markdown; an empty string clears it'),
      due: DateTimeInput.nullable().optional().describe('Due date-time in ISO 8601; null removes it'),
      due_complete: z.boolean().optional().describe('Whether the due date is marked complete'),
      closed: z.boolean().optional().describe('true archives the card, false restores it'),
      label_ids: idArray('label').optional().describe('Replaces all labels; [] removes them'),
      member_ids: idArray('member').optional().describe('Replaces all members; [] removes them'),
      list_id: trelloId('list').optional().describe('Move the card to this list'),
      board_id: trelloId('board')
        .optional()
        .describe("Move the card to this board; without list_id it lands in the board's first open list"),
      pos: Pos.optional().describe('"top", "bottom" or a positive number, within the (new) list'),
    })
    .superRefine((input, ctx) => {
      if (CHANGES.every((field) => input[field] === undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: ['name'],
          message: `give at least one change: ${CHANGES.join(', ')}`,
        })
      }
    }),
  output: Card,
  summarize: (card, { baseUrl }) => ({
    text: `Card ${cardName(card)} updated${card.closed ? ' (archived)' : ''}`,
    url: webUrl(baseUrl, card.shortUrl),
  }),
  async run({ api }, { card_id, ...changes }) {
    // The inputs' names are the catalogue's (docs/tools.md); Trello's own parameters are camelCase.
    return api.put(`/1/cards/${card_id}`, {
      name: changes.name,
      desc: changes.desc,
      due: changes.due,
      dueComplete: changes.due_complete,
      closed: changes.closed,
      idLabels: commaSeparated(changes.label_ids),
      idMembers: commaSeparated(changes.member_ids),
      idList: changes.list_id,
      idBoard: changes.board_id,
      pos: changes.pos,
    })
  },
})
