import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Board, List } from '../schemas.ts'
import { plural } from '../links.ts'

export const getBoards = defineTool({
  id: 'trello.get_boards',
  title: 'Get Boards',
  description:
    'List the Trello boards the connected account can access, each with its open lists, so their ids can be passed to Create Card or Create List.',
  effect: 'read',
  input: z.object({
    filter: z
      .enum(['open', 'closed', 'all', 'members', 'organization', 'public', 'starred'])
      .default('open')
      .describe(
        'Which boards: open (the default), closed (archived), all, members, organization, public or starred',
      ),
  }),
  output: z.object({ boards: z.array(Board.extend({ lists: z.array(List) })) }),
  summarize: ({ boards }) => ({
    text: `${plural(boards.length, 'board')}: ${boards
      .slice(0, 5)
      .map((b) => b.name)
      .join(', ')}${boards.length > 5 ? ', …' : ''}`,
  }),
  async run({ api }, { filter }) {
    // `lists=open` nests each board's lists in the same answer, sparing a request per board.
    return { boards: await api.get('/1/members/me/boards', { filter, lists: 'open' }) }
  },
})
