import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Card, Checklist, trelloId } from '../schemas.ts'
import { cardName, webUrl } from '../links.ts'
import { cardOptions } from '../options.ts'

const Member = z.looseObject({ id: z.string(), fullName: z.string(), username: z.string() })
const Named = z.looseObject({ id: z.string(), name: z.string() })

export const getCard = defineTool({
  id: 'trello.get_card',
  title: 'Get Card',
  description:
    'Get a Trello card with its description, due date, labels, checklists (with their items), members, and the names of its list and board.',
  effect: 'read',
  options: { card_id: cardOptions },
  input: z.object({ card_id: trelloId('card').describe("The card's 24-character id (not its shortLink)") }),
  output: Card.extend({
    checklists: z.array(Checklist),
    members: z.array(Member),
    list: Named,
    board: Named,
  }),
  summarize: (card, { baseUrl }) => ({
    text: `Card ${cardName(card)} in ${card.list.name} on ${card.board.name}${card.closed ? ' (archived)' : ''}`,
    url: webUrl(baseUrl, card.shortUrl),
  }),
  async run({ api }, { card_id }) {
    // One request: Trello nests checklists, members, list and board on demand.
    return api.get(`/1/cards/${card_id}`, {
      checklists: 'all',
      members: 'true',
      member_fields: 'fullName,username',
      list: 'true',
      list_fields: 'name',
      board: 'true',
      board_fields: 'name',
    })
  },
})
