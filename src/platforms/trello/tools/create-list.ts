import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { List, Name, Pos, trelloId } from '../schemas.ts'
import { boardOptions } from '../options.ts'

export const createList = defineTool({
  id: 'trello.create_list',
  title: 'Create List',
  description: 'Create a list (a column) on a Trello board.',
  effect: 'write',
  options: { board_id: boardOptions },
  input: z.object({
    name: Name,
    board_id: trelloId('board').describe('The board the list goes on'),
    pos: Pos.optional().describe(
      '"top" (leftmost), "bottom" (rightmost, the default) or a positive number; lists sort by ascending pos',
    ),
  }),
  output: List,
  summarize: (list) => ({ text: `List "${list.name}" created` }),
  async run({ api }, input) {
    return api.post('/1/lists', { name: input.name, idBoard: input.board_id, pos: input.pos })
  },
})
