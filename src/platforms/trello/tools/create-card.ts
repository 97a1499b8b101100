import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Card, commaSeparated, DateTimeInput, idArray, Name, Pos, Text, trelloId } from '../schemas.ts'
import { cardName, webUrl } from '../links.ts'
import { labelsOfListBoardOptions, listOptions } from '../options.ts'

export const createCard = defineTool({
  id: 'trello.create_card',
  title: 'Create Card',
  description:
    "Create a card in a list of a Trello board, with an optional description, position, due date and labels. Get Boards gives the ids of each board's lists.",
  effect: 'write',
  options: { list_id: listOptions, label_ids: labelsOfListBoardOptions },
  input: z.object({
    list_id: trelloId('list').describe('The list the card goes in'),
    name: Name.optional(),
    desc: Text.optional().describe('Description, in Markdown'),
    pos: Pos.optional().describe(
      '"top", "bottom" (the default) or a positive number; cards sort by ascending pos',
    ),
    due: DateTimeInput.nullable()
      .optional()
      .describe('Due date-time in ISO 8601, e.g. 2025-03-01T17:00:00Z; null for none'),
    label_ids: idArray('label')
      .optional()
      .describe("Ids of labels of the list's board (Get Card shows the labels a card has)"),
  }),
  output: Card,
  summarize: (card, { baseUrl }) => ({
    text: `Card ${cardName(card)} created`,
    url: webUrl(baseUrl, card.shortUrl),
  }),
  async run({ api }, input) {
    return api.post('/1/cards', {
      idList: input.list_id,
      name: input.name,
      desc: input.desc,
      pos: input.pos,
      due: input.due,
      idLabels: commaSeparated(input.label_ids),
    })
  },
})
