import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { CommentAction, trelloId } from '../schemas.ts'
import { CommentText, postComment } from './comment.ts'

/**
 * The Add Comment step of an older integration version. Workflows saved against it send
 * `{ card_id, comment }`, so it keeps that shape and stays runnable; new work should use
 * Add Comment to Card, which has the same effect.
 */
export const addComment = defineTool({
  id: 'trello.add_comment',
  title: 'Add Comment',
  description:
    'Legacy: post a comment on a Trello card. Kept for workflows built on it; use Add Comment to Card for new ones.',
  effect: 'write',
  legacy: true,
  input: z.object({
    card_id: trelloId('card'),
    comment: CommentText,
  }),
  output: CommentAction,
  summarize: (action) => ({ text: `Comment added to card "${action.data.card.name}"` }),
  async run({ api }, { card_id, comment }) {
    return postComment(api, card_id, comment)
  },
})
