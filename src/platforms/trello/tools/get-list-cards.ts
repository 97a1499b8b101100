import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Card, trelloId } from '../schemas.ts'
import { plural } from '../links.ts'
import { listOptions } from '../options.ts'

export const getListCards = defineTool({
  id: 'trello.get_list_cards',
  title: 'Get List Cards',
  description: 'Get all the cards of a Trello list, in their order in the list, top first.',
  effect: 'read',
  options: { list_id: listOptions },
  input: z.object({
    list_id: trelloId('list').describe("The list; Get Boards gives each board's lists"),
    filter: z
      .enum(['open', 'closed', 'all'])
      .default('open')
      .describe('open (the default), closed (archived) or all cards'),
  }),
  output: z.object({ cards: z.array(Card) }),
  summarize: ({ cards }) => ({ text: plural(cards.length, 'card') }),
  async run({ api }, { list_id, filter }) {
    // Trello answers in list order (ascending pos).
    return { cards: await api.get(`/1/lists/${list_id}/cards`, { filter }) }
  },
})
