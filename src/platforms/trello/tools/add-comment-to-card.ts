import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { CommentAction, trelloId } from '../schemas.ts'
import { CommentText, postComment } from './comment.ts'
import { cardOptions } from '../options.ts'

export const addCommentToCard = defineTool({
  id: 'trello.add_comment_to_card',
  title: 'Add Comment to Card',
  description:
    'Post a comment on a Trello card as the connected account; @username mentions notify board members. Returns the commentCard action.',
  effect: 'write',
  options: { card_id: cardOptions },
  input: z.object({
    card_id: trelloId('card').describe('The card to comment on'),
    text: CommentText.describe('The comment, in Markdown'),
  }),
  output: CommentAction,
  summarize: (action) => ({ text: `Comment added to card "${action.data.card.name}"` }),
  async run({ api }, { card_id, text }) {
    return postComment(api, card_id, text)
  },
})
