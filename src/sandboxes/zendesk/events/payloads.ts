import { randomUUID } from 'node:crypto'
import type { Account, Audit, Comment, Ticket } from '../model.ts'
import { isoSeconds } from '../time.ts'

/**
 * Ticket events in the envelope Zendesk's event webhooks send (sources: Zendesk webhooks, Z-EVT and
 * Z-TEVT): `{type, account_id, id, time, zendesk_event_version, subject, detail, event}`, `detail`
 * being the ticket after the change with every id a string. Choices where the reference is silent
 * (docs/sandbox.md, "Ticket events"):
 * - enum values (status, priority, type) are upper case, as in the documented examples;
 * - `agent_assignment_changed` carries the assignee ids as numbers (or null), as in the captured example;
 * - a new ticket sends only `ticket.created`: its first comment is the description, not a `comment_added`;
 * - `custom_status` and `form_id` are null (the sandbox has neither).
 */

export const EVENT_PREFIX = 'zen:event-type:'
export const TICKET_EVENT_VERSION = '2022-11-06'

/** The five ticket event types the sandbox sends. */
export const TICKET_EVENT_TYPES = [
  'ticket.created',
  'ticket.status_changed',
  'ticket.priority_changed',
  'ticket.comment_added',
  'ticket.agent_assignment_changed',
].map((t) => `${EVENT_PREFIX}${t}`)

export interface TicketEvent {
  type: string
  account_id: number
  id: string
  time: string
  zendesk_event_version: string
  subject: string
  detail: Record<string, unknown>
  event: Record<string, unknown>
}

const idOrNull = (id: number | null): string | null => (id === null ? null : String(id))
const upper = (value: string | null): string | null => (value === null ? null : value.toUpperCase())

function ticketDetail(ticket: Ticket, actorId: number): Record<string, unknown> {
  return {
    actor_id: String(actorId),
    assignee_id: idOrNull(ticket.assigneeId),
    brand_id: String(ticket.brandId),
    created_at: isoSeconds(ticket.createdAt),
    custom_status: null,
    description: ticket.description,
    external_id: ticket.externalId,
    form_id: null,
    group_id: idOrNull(ticket.groupId),
    id: String(ticket.id),
    is_public: ticket.isPublic,
    organization_id: idOrNull(ticket.organizationId),
    priority: upper(ticket.priority),
    requester_id: String(ticket.requesterId),
    status: upper(ticket.status),
    subject: ticket.subject,
    submitter_id: String(ticket.submitterId),
    tags: [...ticket.tags],
    type: upper(ticket.type),
    updated_at: isoSeconds(ticket.updatedAt),
    via: { channel: ticket.via.channel },
  }
}

function commentEvent(account: Account, comment: Comment): Record<string, unknown> {
  const author = account.users.get(comment.authorId)
  return {
    comment: {
      id: String(comment.id),
      body: comment.plainBody,
      is_public: comment.public,
      author: {
        id: String(comment.authorId),
        is_staff: author !== undefined && author.role !== 'end-user',
        name: author?.name ?? '',
      },
    },
  }
}

/** The events one ticket write causes, from its audit: they share `event.meta.sequence.id`. */
export function eventsOfWrite(account: Account, ticket: Ticket, audit: Audit, now: number): TicketEvent[] {
  const parts: Array<{ type: string; event: Record<string, unknown> }> = []
  if (audit.events.some((e) => e.type === 'Create')) {
    parts.push({ type: 'ticket.created', event: { current: { status: upper(ticket.status) } } })
  } else {
    for (const e of audit.events) {
      if (e.type === 'Comment') {
        const comment = (account.comments.get(ticket.id) ?? []).find((c) => c.id === e.commentId)
        if (comment) parts.push({ type: 'ticket.comment_added', event: commentEvent(account, comment) })
      } else if (e.type === 'Change' && e.field_name === 'status') {
        parts.push({
          type: 'ticket.status_changed',
          event: { current: upper(e.value as string), previous: upper(e.previous_value as string) },
        })
      } else if (e.type === 'Change' && e.field_name === 'priority') {
        parts.push({
          type: 'ticket.priority_changed',
          event: {
            current: upper(e.value as string | null),
            previous: upper(e.previous_value as string | null),
          },
        })
      } else if (e.type === 'Change' && e.field_name === 'assignee_id') {
        parts.push({
          type: 'ticket.agent_assignment_changed',
          event: { current: e.value ?? null, previous: e.previous_value ?? null },
        })
      }
    }
  }
  const sequence = randomUUID()
  const detail = ticketDetail(ticket, audit.authorId)
  return parts.map((part, position) => ({
    type: `${EVENT_PREFIX}${part.type}`,
    account_id: account.id,
    id: randomUUID(),
    time: isoSeconds(now),
    zendesk_event_version: TICKET_EVENT_VERSION,
    subject: `zen:ticket:${ticket.id}`,
    detail,
    event: { ...part.event, meta: { sequence: { id: sequence, position: position + 1 } } },
  }))
}
