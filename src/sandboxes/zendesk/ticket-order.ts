import type { SortKey } from './pagination.ts'
import { TICKET_PRIORITIES, TICKET_STATUSES, type Ticket } from './model.ts'

/** Zendesk orders statuses new < open < pending < hold < solved < closed. */
export const statusRank = (status: Ticket['status']): number => TICKET_STATUSES.indexOf(status)
/** Priorities low < normal < high < urgent; "no priority" sorts first. */
export const priorityRank = (priority: Ticket['priority']): number | null =>
  priority === null ? null : TICKET_PRIORITIES.indexOf(priority)

/** Sort keys for ticket lists and search; every key ends with the id so cursors are exact. */
export const TICKET_SORT_KEYS: Record<string, (t: Ticket) => SortKey> = {
  id: (t) => [t.id],
  created_at: (t) => [t.createdAt, t.id],
  updated_at: (t) => [t.updatedAt, t.id],
  status: (t) => [statusRank(t.status), t.id],
  priority: (t) => [priorityRank(t.priority), t.id],
  ticket_type: (t) => [t.type, t.id],
  subject: (t) => [t.subject?.toLowerCase() ?? null, t.id],
  requester: (t) => [t.requesterId, t.id],
  assignee: (t) => [t.assigneeId, t.id],
}
