import {
  ActionSchema,
  BoardSchema,
  CardSchema,
  ChecklistSchema,
  MemberSchema,
  TrelloListSchema,
} from 'trello.js/models'
import { z } from 'zod'

/**
 * trello.js's response schemas (generated from Trello's API description), widened only where they
 * are stricter than Trello:
 * - a member's avatarHash/avatarUrl are `string | undefined` in trello.js, but Trello sends `null`
 *   for a member without an avatar (captured: `"avatarHash":null,"avatarUrl":null` on members and
 *   on actions' memberCreator); the seeded members have no avatar.
 * - a board's idOrganization is `string | undefined` in trello.js, but Trello sends `null` for a
 *   board outside any workspace (captured: `"idOrganization":null,"idEnterprise":null`); the
 *   sandbox has no workspaces.
 * trello.js strips the keys its schema does not name, so nested answers (a card with its
 * checklists, list and board) are read through these extended schemas.
 */
const avatar = { avatarHash: z.string().nullish(), avatarUrl: z.string().nullish() }
export const Member = MemberSchema.extend(avatar)
export const Board = BoardSchema.extend({ idOrganization: z.string().nullish() })
export const BoardWithLists = Board.extend({ lists: z.array(TrelloListSchema) })
export const CommentAction = ActionSchema.extend({
  memberCreator: ActionSchema.shape.memberCreator.unwrap().extend(avatar),
})
/** A card with `checklists=all`, `members=true`, `list=true` and `board=true`. */
export const CardWithRelations = CardSchema.extend({
  checklists: z.array(ChecklistSchema),
  members: z.array(Member),
  list: TrelloListSchema,
  board: Board,
})
