import type { AnyTrigger } from '../../../core/triggers/define.ts'
import {
  newAttachment,
  newChecklist,
  newComment,
  newLabelAddedToCard,
  newMemberOnCard,
} from './card-relations.ts'
import { cardArchived, cardMoved, cardUpdated, newCard } from './cards.ts'
import { customWebhookEvents, newBoard, newBoardActivity, newLabelCreated } from './boards.ts'
import { cardDueDateReminder } from './due-reminder.ts'
import { newNotification } from './notifications.ts'

/** Trello's fifteen triggers, in the order the catalogue shows them (docs/triggers/trello.md). */
export const trelloTriggers: AnyTrigger[] = [
  newCard,
  cardUpdated,
  cardMoved,
  cardArchived,
  cardDueDateReminder,
  newComment,
  newMemberOnCard,
  newLabelCreated,
  newLabelAddedToCard,
  newChecklist,
  newBoard,
  newBoardActivity,
  newNotification,
  newAttachment,
  customWebhookEvents,
]
