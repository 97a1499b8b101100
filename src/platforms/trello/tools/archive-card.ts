import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Card, trelloId } from '../schemas.ts'
import { cardName, webUrl } from '../links.ts'
import { cardOptions } from '../options.ts'

export const archiveCard = defineTool({
  id: 'trello.archive_card',
  title: 'Archive Card',
  description:
    'Archive a Trello card: it leaves its list but is kept, and Update Card with closed=false restores it.',
  effect: 'write', // archiving can be undone, unlike a delete
  destructive: true, // but it takes the card off its list: not a purely additive change
  idempotent: true,
  options: { card_id: cardOptions },
  input: z.object({ card_id: trelloId('card').describe('The card to archive') }),
  output: Card,
  confirm: "Archive this card? It leaves its list; it can be restored from the board's archive.",
  summarize: (card, { baseUrl }) => ({
    text: `Card ${cardName(card)} archived`,
    url: webUrl(baseUrl, card.shortUrl),
  }),
  async run({ api }, { card_id }) {
    return api.put(`/1/cards/${card_id}`, { closed: true })
  },
})
