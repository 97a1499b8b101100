import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { CheckItem, DateTimeInput, Name, Pos, trelloId } from '../schemas.ts'
import { checklistOptions } from '../options.ts'

export const createChecklistItem = defineTool({
  id: 'trello.create_checklist_item',
  title: 'Create a Checklist Item',
  description:
    'Add an item to an existing checklist on a Trello card, checked or not, optionally with a due date.',
  effect: 'write',
  options: { checklist_id: checklistOptions },
  input: z.object({
    checklist_id: trelloId('checklist').describe("The checklist; Get Card lists a card's checklists"),
    name: Name,
    pos: Pos.optional().describe('"top", "bottom" (the default) or a positive number, within the checklist'),
    checked: z.boolean().optional().describe('true adds it already complete'),
    due: DateTimeInput.nullable()
      .optional()
      .describe("Due date-time in ISO 8601 (the item's own, apart from the card's); null for none"),
  }),
  output: CheckItem,
  summarize: (item) => ({ text: `Checklist item "${item.name}" added (${item.state})` }),
  async run({ api }, { checklist_id, ...item }) {
    return api.post(`/1/checklists/${checklist_id}/checkItems`, item)
  },
})
