import { z } from 'zod'
import type { ApiClient } from '../../../core/http/api-client.ts'
import type { OptionsSource, ToolContext } from '../../../core/tools/define.ts'
import {
  defineTrigger,
  type AnyTrigger,
  type EventCandidate,
  type TriggerEvent,
} from '../../../core/triggers/define.ts'
import { baseEvent, ticketEvent } from './event.ts'
import { eventOf, type TicketDetail, type ZendeskEvent } from './payload.ts'

/** Every Zendesk trigger shares one webhook per integration, subscribed to the five ticket events. */
export const TICKETS_MODEL = 'tickets'
/** How many recent events a subscription's test shows, and how many tickets it reads for them. */
export const RECENT_LIMIT = 25

export type TicketConfig = Record<string, any>

/** A ticket as the REST API answers it (ids as numbers, enums lower case). */
export interface RestTicket {
  id: number
  subject: string | null
  description: string | null
  status: string
  priority: string | null
  type: string | null
  tags: string[]
  requester_id: number | null
  submitter_id: number | null
  assignee_id: number | null
  group_id: number | null
  organization_id: number | null
  created_at: string
  updated_at: string
}

export interface TicketTriggerSpec {
  id: string
  title: string
  description: string
  /** The Zendesk event type that fires it. */
  type: string
  config?: z.core.$ZodLooseShape
  configOptions?: Record<string, OptionsSource>
  /** The trigger's own event fields, or null when this event does not fire it under `config`. */
  accept(event: ZendeskEvent, config: TicketConfig): Record<string, unknown> | null
  event?: z.core.$ZodLooseShape
  sample: ZendeskEvent
  /** Events made from recent tickets for a test, newest first, through the same `accept`, with the people they name. */
  recent(ctx: ToolContext, config: TicketConfig): Promise<Recent>
}

export interface RestUser {
  id: number
  name: string
  email: string | null
}
export interface Recent {
  events: ZendeskEvent[]
  users: RestUser[]
}

export const candidateOf = (event: ZendeskEvent, actorId?: string): EventCandidate => ({
  dedupeKey: event.id,
  type: event.type,
  raw: event,
  ...(actorId ? { actorId } : {}),
})

const idString = (v: number | null | undefined): string | null =>
  v === null || v === undefined ? null : String(v)

/** A REST ticket in the webhook's `detail` shape, so recent tickets go through the same match. */
export function detailOf(ticket: RestTicket): TicketDetail {
  return {
    id: String(ticket.id),
    assignee_id: idString(ticket.assignee_id),
    requester_id: idString(ticket.requester_id),
    submitter_id: idString(ticket.submitter_id),
    group_id: idString(ticket.group_id),
    organization_id: idString(ticket.organization_id),
    subject: ticket.subject,
    description: ticket.description,
    status: ticket.status,
    priority: ticket.priority,
    type: ticket.type,
    tags: ticket.tags,
    created_at: ticket.created_at,
    updated_at: ticket.updated_at,
  }
}

/** An event made from a ticket as it is now: its id says it was read, not delivered. */
export function eventFromTicket(
  type: string,
  ticket: RestTicket,
  event: Record<string, unknown>,
  at = ticket.updated_at,
): ZendeskEvent {
  return { type, id: `recent:${ticket.id}:${at}`, time: at, detail: detailOf(ticket), event }
}

/**
 * Recent tickets, newest first: by id (the newest created) or by update. Cursor pagination, as List
 * Tickets asks, sorts by these and not by created_at.
 */
export async function recentTickets(
  api: ApiClient,
  sort: '-id' | '-updated_at',
): Promise<{ tickets: RestTicket[]; users: RestUser[] }> {
  // `include=users` sideloads the people the tickets name, sparing a request per person.
  const body = await api.get('/api/v2/tickets.json', { 'page[size]': RECENT_LIMIT, sort, include: 'users' })
  return { tickets: body.tickets ?? [], users: body.users ?? [] }
}

type Person = { id: number; name?: string; email?: string } | null | undefined

/** The people an event names (by id, in a webhook's delivery): requester, assignee, actor, a comment's author, an assignment's agents. */
function peopleOf(e: TriggerEvent): Array<{ id: number; name?: string; email?: string }> {
  const t = (e.ticket ?? {}) as { requester?: Person; assignee?: Person }
  const comment = e.comment as { author?: Person } | undefined
  return [
    t.requester,
    t.assignee,
    e.actor as Person,
    e.previous as Person,
    e.current as Person,
    comment?.author,
  ].filter((p): p is { id: number } => !!p && typeof p === 'object' && typeof p.id === 'number')
}

/** Names and emails for the people the events name (webhooks carry only ids). */
function named(events: TriggerEvent[], users: RestUser[]): TriggerEvent[] {
  const people = new Map(users.map((u) => [u.id, u]))
  for (const e of events)
    for (const p of peopleOf(e)) {
      const known = people.get(p.id)
      if (known) Object.assign(p, { name: known.name, ...(known.email ? { email: known.email } : {}) })
    }
  return events
}

/**
 * A live event's people with their names and emails, in one Show Many Users call (GET
 * /api/v2/users/show_many?ids=…, up to 100 ids: an event names at most six). A person Zendesk no
 * longer has (deleted) keeps only their id, as the delivery gave it.
 */
async function withPeople(ctx: ToolContext, event: TriggerEvent): Promise<TriggerEvent> {
  const ids = [...new Set(peopleOf(event).map((p) => p.id))]
  if (ids.length === 0) return event
  const body = await ctx.api.get('/api/v2/users/show_many.json', { ids: ids.join(',') })
  return named([event], body.users ?? [])[0]
}

/** Where a Zendesk event names people: a mapping reading any of these is worth the call above. */
const PEOPLE_PATHS = ['ticket.requester', 'ticket.assignee', 'actor', 'previous', 'current', 'comment.author']

/** A trigger fired by one ticket event type on the integration's one webhook. */
export function ticketTrigger(spec: TicketTriggerSpec): AnyTrigger {
  const config = z.object({ ...spec.config })
  const match = (candidate: EventCandidate, cfg: TicketConfig): TriggerEvent | null => {
    const event = eventOf(candidate, spec.type)
    if (!event) return null
    const extra = spec.accept(event, cfg)
    return extra && { ...baseEvent(event), ...extra }
  }
  const sample = match(candidateOf(spec.sample), config.parse({}))
  if (!sample) throw new Error(`${spec.id}: its sample event does not fire it`)
  return defineTrigger({
    id: spec.id,
    title: spec.title,
    description: spec.description,
    mode: 'instant',
    requiredPlan: 'enterprise',
    config,
    ...(spec.configOptions ? { configOptions: spec.configOptions } : {}),
    event: ticketEvent(spec.event ?? {}),
    sample,
    models: () => [TICKETS_MODEL],
    match: (candidate, cfg) => match(candidate, cfg as TicketConfig),
    // Webhooks name people by id only; a test reads them with the tickets, so a live run fills them in
    // too, or `{{ ticket.requester.email }}` would work in a test and be empty live (issue 22, §5).
    enrich: { paths: PEOPLE_PATHS, run: withPeople },
    async recent(ctx, cfg) {
      const { events, users } = await spec.recent(ctx, cfg as TicketConfig)
      const matched = events
        .map((e) => match(candidateOf(e), cfg as TicketConfig))
        .filter((e): e is TriggerEvent => e !== null)
        .slice(0, RECENT_LIMIT)
      return named(matched, users)
    },
  })
}
