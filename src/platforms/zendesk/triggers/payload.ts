import type { EventCandidate } from '../../../core/triggers/define.ts'

/**
 * A ticket event as Zendesk's event webhooks send it (docs/triggers/zendesk.md, "Facts";
 * sources: Zendesk webhooks): `{type, id, time, subject, detail, event}`, `detail` being the ticket
 * after the change with ids as strings and enum values upper case in the documented examples.
 */
export interface TicketDetail {
  id: string
  actor_id?: string | null
  assignee_id?: string | null
  requester_id?: string | null
  submitter_id?: string | null
  group_id?: string | null
  organization_id?: string | null
  subject?: string | null
  description?: string | null
  status?: string | null
  priority?: string | null
  type?: string | null
  tags?: string[]
  created_at?: string
  updated_at?: string
  via?: { channel?: string }
}

export interface ZendeskEvent {
  type: string
  id: string
  time?: string
  account_id?: number
  subject?: string
  detail: TicketDetail
  event: Record<string, unknown>
}

export const EVENT_PREFIX = 'zen:event-type:'

export const TICKET_EVENTS = {
  created: `${EVENT_PREFIX}ticket.created`,
  statusChanged: `${EVENT_PREFIX}ticket.status_changed`,
  priorityChanged: `${EVENT_PREFIX}ticket.priority_changed`,
  commentAdded: `${EVENT_PREFIX}ticket.comment_added`,
  assignmentChanged: `${EVENT_PREFIX}ticket.agent_assignment_changed`,
} as const

/** What one webhook subscribes to: the five events behind the five triggers. */
export const SUBSCRIBED_EVENTS = Object.values(TICKET_EVENTS)

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

export function isTicketEvent(value: unknown): value is ZendeskEvent {
  return (
    isRecord(value) &&
    typeof value.type === 'string' &&
    typeof value.id === 'string' &&
    isRecord(value.detail) &&
    (typeof value.detail.id === 'string' || typeof value.detail.id === 'number') &&
    isRecord(value.event)
  )
}

/** The event in a candidate, when it is a ticket event of this type. */
export function eventOf(candidate: EventCandidate, type: string): ZendeskEvent | undefined {
  return candidate.type === type && isTicketEvent(candidate.raw) ? candidate.raw : undefined
}
