import type { AnyTrigger } from '../../../core/triggers/define.ts'
import {
  newComment,
  newTicket,
  ticketAssigned,
  ticketPriorityUpdated,
  ticketStatusChanged,
} from './tickets.ts'

/** Zendesk's five triggers, in the order the catalogue shows them (docs/triggers/zendesk.md). */
export const zendeskTriggers: AnyTrigger[] = [
  newTicket,
  ticketStatusChanged,
  ticketPriorityUpdated,
  newComment,
  ticketAssigned,
]
