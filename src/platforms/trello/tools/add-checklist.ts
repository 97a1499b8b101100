import { z } from 'zod'
import { AppError } from '../../../core/errors.ts'
import { defineTool } from '../../../core/tools/define.ts'
import { Checklist, Name, Pos, trelloId } from '../schemas.ts'
import { plural } from '../links.ts'
import { cardOptions } from '../options.ts'

/**
 * Each initial item is one more request, and a token may make 100 per 10 s (docs/platforms/trello.md, "Facts"):
 * 50 leaves room for the rest of a workflow.
 */
const MAX_INITIAL_ITEMS = 50

export const addChecklist = defineTool({
  id: 'trello.add_checklist',
  title: 'Add Checklist',
  description:
    'Add a checklist to a Trello card, optionally with its first items (in the order given). Returns the checklist with its items.',
  effect: 'write',
  options: { card_id: cardOptions },
  input: z.object({
    card_id: trelloId('card').describe('The card the checklist goes on'),
    name: Name.default('Checklist'),
    pos: Pos.optional().describe(
      '"top", "bottom" (the default) or a positive number, among the card\'s checklists',
    ),
    items: z
      .array(Name)
      .max(MAX_INITIAL_ITEMS)
      .optional()
      .describe('Names of the items to add, unchecked, in this order'),
  }),
  output: Checklist,
  summarize: (checklist) => ({
    text: `Checklist "${checklist.name}" added with ${plural(checklist.checkItems.length, 'item')}`,
  }),
  async run({ api }, input) {
    const checklist = await api.post('/1/checklists', {
      idCard: input.card_id,
      name: input.name,
      pos: input.pos,
    })
    const checkItems = [...checklist.checkItems]
    // One after another, each at the bottom, so the items keep the order given.
    for (const name of input.items ?? []) {
      try {
        checkItems.push(await api.post(`/1/checklists/${checklist.id}/checkItems`, { name, pos: 'bottom' }))
      } catch (err) {
        // The checklist exists by now: say so, so a retry adds the missing items instead of a second checklist.
        if (!(err instanceof AppError)) throw err
        const done = `checklist ${checklist.id} was created with ${checkItems.length} of ${input.items!.length} items`
        throw new AppError(
          err.code,
          `${err.message} (${done}; Create a Checklist Item adds the rest)`,
          err.extras,
        )
      }
    }
    return { ...checklist, checkItems }
  },
})
