import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Card, commaSeparated, DateTimeInput, idArray, Name, Pos, stepInput, Text, trelloId } from '../schemas.ts'
import { cardName, webUrl } from '../links.ts'
import { boardOptions, cardOptions, labelsOfCardBoardOptions, listsOfCardBoardOptions, membersOfCardBoardOptions } from '../options.ts'

const CHANGES = ['name', 'desc', 'due', 'dueComplete', 'closed', 'idLabels', 'idMembers', 'idList', 'idBoard', 'pos'] as const

export const updateCard = defineTool({
  id: 'trello.update_card',
  title: 'Update Card',
  description: 'Change a Trello card: rename it, edit its description, set or clear its due date, mark it complete, archive or restore it, replace its labels or members, reorder it, or move it to another list (of the same or another board).',
  effect: 'write',
  idempotent: true,
  options: { idCard: cardOptions, idList: listsOfCardBoardOptions, idBoard: boardOptions, idLabels: labelsOfCardBoardOptions, idMembers: membersOfCardBoardOptions },
  input: stepInput({
    idCard: trelloId('card').describe('The card to change'),
    name: Name.optional(),
    desc: Text.optional().describe('Description, in Markdown; an empty string clears it'),
    due: DateTimeInput.nullable().optional().describe('Due date-time in ISO 8601; null removes it'),
    dueComplete: z.boolean().optional().describe('Whether the due date is marked complete'),
    closed: z.boolean().optional().describe('true archives the card, false restores it'),
    idLabels: idArray('label').optional().describe('Replaces all labels; [] removes them'),
    idMembers: idArray('member').optional().describe('Replaces all members; [] removes them'),
    idList: trelloId('list').optional().describe('Move the card to this list'),
    idBoard: trelloId('board').optional().describe('Move the card to this board; without idList it lands in the board\'s first open list'),
    pos: Pos.optional().describe('"top", "bottom" or a positive number, within the (new) list'),
  }).superRefine((input, ctx) => {
    if (CHANGES.every((field) => input[field] === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: `give at least one change: ${CHANGES.join(', ')}` })
    }
  }),
  output: Card,
  summarize: (card, { baseUrl }) => ({ text: `Card ${cardName(card)} updated${card.closed ? ' (archived)' : ''}`, url: webUrl(baseUrl, card.shortUrl) }),
  async run({ api }, { idCard, ...changes }) {
    return api.put(`/1/cards/${idCard}`, {
      ...changes,
      idLabels: commaSeparated(changes.idLabels),
      idMembers: commaSeparated(changes.idMembers),
    })
  },
})
