import { z } from 'zod'
import type { TriggerEvent } from '../../../core/triggers/define.ts'
import type { TicketDetail, ZendeskEvent } from './payload.ts'

/**
 * The normalised event every Zendesk trigger emits (docs/triggers/zendesk.md, "Events"): the event,
 * the ticket as the change left it, and who acted; each trigger adds previous and current values,
 * or the comment. Enum values are lower case, as the REST API writes them, and ids are numbers.
 */

const Person = z.object({
  id: z.number().int(),
  name: z.string().optional().describe('Where known: webhooks carry only ids, a test reads the names'),
  email: z.string().optional(),
})

export const TicketRef = z.object({
  id: z.number().int(),
  subject: z.string().nullable(),
  description: z.string().nullable(),
  status: z.string().nullable().describe('new, open, pending, hold, solved or closed'),
  priority: z.string().nullable().describe('low, normal, high, urgent, or null'),
  type: z.string().nullable(),
  tags: z.array(z.string()),
  requester: Person.nullable(),
  assignee: Person.nullable(),
  group_id: z.number().int().nullable(),
  organization_id: z.number().int().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
})

export const ticketEvent = <S extends z.core.$ZodLooseShape>(extra: S) =>
  z.object({
    event: z.object({
      id: z.string().describe('The Zendesk event id: unique per event'),
      type: z.string().describe('Such as ticket.status_changed'),
      time: z.string().nullable(),
    }),
    ticket: TicketRef,
    actor: Person.nullable().describe('Who made the change'),
    ...extra,
  })

export const Comment = z.object({
  id: z.number().int(),
  body: z.string(),
  public: z.boolean().describe('false for an internal note'),
  author: Person.extend({ is_staff: z.boolean().optional() }).nullable(),
})

const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : NaN
  return Number.isSafeInteger(n) ? n : null
}
export const lower = (v: unknown): string | null => (typeof v === 'string' && v ? v.toLowerCase() : null)
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
export const person = (
  id: unknown,
  known?: { name?: unknown; email?: unknown },
): z.infer<typeof Person> | null => {
  const n = num(id)
  if (n === null) return null
  return {
    id: n,
    ...(typeof known?.name === 'string' ? { name: known.name } : {}),
    ...(typeof known?.email === 'string' && known.email ? { email: known.email } : {}),
  }
}

export function ticketOf(detail: TicketDetail): z.infer<typeof TicketRef> {
  return {
    id: num(detail.id) ?? 0,
    subject: str(detail.subject),
    description: str(detail.description),
    status: lower(detail.status),
    priority: lower(detail.priority),
    type: lower(detail.type),
    tags: Array.isArray(detail.tags) ? detail.tags.filter((t) => typeof t === 'string') : [],
    requester: person(detail.requester_id),
    assignee: person(detail.assignee_id),
    group_id: num(detail.group_id),
    organization_id: num(detail.organization_id),
    created_at: str(detail.created_at),
    updated_at: str(detail.updated_at),
  }
}

/** The common part of an event. */
export function baseEvent(event: ZendeskEvent): TriggerEvent {
  return {
    event: { id: event.id, type: event.type.replace(/^zen:event-type:/, ''), time: str(event.time) },
    ticket: ticketOf(event.detail),
    actor: person(event.detail.actor_id),
  }
}

/** A realistic ticket for samples and tests (the shapes of the documented examples). */
export const SAMPLE_DETAIL: TicketDetail = {
  id: '5158',
  actor_id: '8447388090494',
  assignee_id: '8447388090494',
  requester_id: '8447388090500',
  submitter_id: '8447388090500',
  group_id: '8447320466430',
  organization_id: '8447346622462',
  subject: 'Cannot login to mobile app',
  description: 'Customer is experiencing login issues with the mobile app',
  status: 'OPEN',
  priority: 'HIGH',
  type: 'PROBLEM',
  tags: ['mobile', 'login'],
  created_at: '2025-01-08T10:12:07Z',
  updated_at: '2025-01-08T16:45:20Z',
  via: { channel: 'web' },
}

export function sampleEvent(
  type: string,
  event: Record<string, unknown>,
  detail: Partial<TicketDetail> = {},
): ZendeskEvent {
  return {
    type: `zen:event-type:${type}`,
    id: 'a8b9c1d2-3e4f-5a6b-7c8d-9e0f1a2b3c4d',
    time: '2025-01-08T16:45:20Z',
    account_id: 22129848,
    subject: 'zen:ticket:5158',
    detail: { ...SAMPLE_DETAIL, ...detail },
    event,
  }
}
