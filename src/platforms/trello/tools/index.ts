import type { AnyTool } from '../../../core/tools/define.ts'
import { addChecklist } from './add-checklist.ts'
import { addComment } from './add-comment.ts'
import { addCommentToCard } from './add-comment-to-card.ts'
import { archiveCard } from './archive-card.ts'
import { createCard } from './create-card.ts'
import { createChecklistItem } from './create-checklist-item.ts'
import { createList } from './create-list.ts'
import { getBoards } from './get-boards.ts'
import { getCard } from './get-card.ts'
import { getListCards } from './get-list-cards.ts'
import { updateCard } from './update-card.ts'

/** Trello's pre-built steps, in catalogue order (the API Call step is added by platform.ts). */
export const trelloTools: AnyTool[] = [
  getBoards,
  getListCards,
  getCard,
  createCard,
  updateCard,
  archiveCard,
  createList,
  addCommentToCard,
  addChecklist,
  createChecklistItem,
  addComment,
]
