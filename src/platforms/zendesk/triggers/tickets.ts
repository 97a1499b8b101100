import { z } from 'zod'
import { assigneeOptions } from '../options.ts'
import { Priority, Status } from '../schemas.ts'
import { Comment, lower, person, TicketRef } from './event.ts'
import { TICKET_EVENTS, type ZendeskEvent } from './payload.ts'
import {
  eventFromTicket,
  RECENT_LIMIT,
  recentTickets,
  ticketTrigger,
  type RestTicket,
  type RestUser,
} from './ticket-trigger.ts'
import { sampleEvent } from './event.ts'

/** Zendesk's five ticket triggers (docs/triggers/zendesk.md), one per ticket event type. */

const change = z.string().nullable()
const onlyIn = (values: string[] | undefined, value: string | null) =>
  !values?.length || (value !== null && values.includes(value))

export const newTicket = ticketTrigger({
  id: 'zendesk.new_ticket',
  title: 'New Ticket Created',
  description: 'Starts when a ticket is created, by a customer, an agent or through the API.',
  type: TICKET_EVENTS.created,
  accept: () => ({}),
  sample: sampleEvent('ticket.created', { current: { status: 'NEW' } }, { status: 'NEW', assignee_id: null }),
  async recent({ api }) {
    const { tickets, users } = await recentTickets(api, '-id')
    return {
      events: tickets.map((t) =>
        eventFromTicket(TICKET_EVENTS.created, t, { current: { status: t.status } }, t.created_at),
      ),
      users,
    }
  },
})

export const ticketStatusChanged = ticketTrigger({
  id: 'zendesk.ticket_status_changed',
  title: 'Ticket Status Changed',
  description: "Starts when a ticket's status changes, optionally only to some statuses.",
  type: TICKET_EVENTS.statusChanged,
  config: {
    statuses: z
      .array(Status, { error: 'give a list of statuses' })
      .max(6)
      .optional()
      .describe('Only changes to these statuses; any status when empty'),
  },
  accept(event, config) {
    const current = lower(event.event.current)
    return onlyIn(config.statuses, current) ? { previous: lower(event.event.previous), current } : null
  },
  event: { previous: change.describe('The status before'), current: change.describe('The status now') },
  sample: sampleEvent('ticket.status_changed', { current: 'SOLVED', previous: 'OPEN' }, { status: 'SOLVED' }),
  // A ticket read now shows its status, not the one before.
  async recent({ api }) {
    const { tickets, users } = await recentTickets(api, '-updated_at')
    return {
      events: tickets.map((t) =>
        eventFromTicket(TICKET_EVENTS.statusChanged, t, { current: t.status, previous: null }),
      ),
      users,
    }
  },
})

export const ticketPriorityUpdated = ticketTrigger({
  id: 'zendesk.ticket_priority_updated',
  title: 'Ticket Priority Updated',
  description: "Starts when a ticket's priority changes, optionally only to some priorities.",
  type: TICKET_EVENTS.priorityChanged,
  config: {
    priorities: z
      .array(Priority, { error: 'give a list of priorities' })
      .max(4)
      .optional()
      .describe('Only changes to these priorities; any priority when empty'),
  },
  accept(event, config) {
    const current = lower(event.event.current)
    return onlyIn(config.priorities, current) ? { previous: lower(event.event.previous), current } : null
  },
  event: {
    previous: change.describe('The priority before, or null'),
    current: change.describe('The priority now, or null'),
  },
  sample: sampleEvent(
    'ticket.priority_changed',
    { current: 'URGENT', previous: 'HIGH' },
    { priority: 'URGENT' },
  ),
  async recent({ api }) {
    const { tickets, users } = await recentTickets(api, '-updated_at')
    return {
      events: tickets
        .filter((t) => t.priority !== null)
        .map((t) =>
          eventFromTicket(TICKET_EVENTS.priorityChanged, t, { current: t.priority, previous: null }),
        ),
      users,
    }
  },
})

const VISIBILITY = ['public', 'internal', 'both'] as const
/** Tickets whose comments a test reads: each costs a request. */
const COMMENT_TICKETS = 5

export const newComment = ticketTrigger({
  id: 'zendesk.new_comment',
  title: 'New Comment Added to Ticket',
  description:
    'Starts when a public reply or an internal note is added to a ticket (choose public, internal or both).',
  type: TICKET_EVENTS.commentAdded,
  config: {
    visibility: z
      .enum(VISIBILITY, { error: 'choose public, internal or both' })
      .default('both')
      .describe('public: replies the requester sees; internal: notes only agents see; both'),
  },
  accept(event, config) {
    const raw = event.event.comment as
      | {
          id?: unknown
          body?: unknown
          is_public?: unknown
          author?: { id?: unknown; name?: unknown; is_staff?: unknown }
        }
      | undefined
    if (!raw || typeof raw.is_public !== 'boolean') return null
    if (
      (config.visibility === 'public' && !raw.is_public) ||
      (config.visibility === 'internal' && raw.is_public)
    )
      return null
    const author = raw.author ? person(raw.author.id, raw.author) : null
    const comment: z.infer<typeof Comment> = {
      id: Number(raw.id) || 0,
      body: typeof raw.body === 'string' ? raw.body : '',
      public: raw.is_public,
      author: author && {
        ...author,
        ...(typeof raw.author?.is_staff === 'boolean' ? { is_staff: raw.author.is_staff } : {}),
      },
    }
    // The actor is usually the comment's author: name them where the payload does.
    const actor = person(event.detail.actor_id)
    return {
      comment,
      ...(actor && author && actor.id === author.id ? { actor: { ...actor, name: author.name } } : {}),
    }
  },
  event: { comment: Comment },
  sample: sampleEvent('ticket.comment_added', {
    comment: {
      id: '9876543210',
      body: 'We are investigating the login issue.',
      is_public: true,
      author: { id: '8447388090494', is_staff: true, name: 'Support Agent' },
    },
  }),
  async recent({ api }) {
    const { tickets, users } = await recentTickets(api, '-updated_at')
    const perTicket = await Promise.all(
      tickets.slice(0, COMMENT_TICKETS).map(async (t) => {
        const body = await api.get(`/api/v2/tickets/${t.id}/comments.json`, {
          'page[size]': RECENT_LIMIT,
          sort: '-created_at',
          include: 'users',
        })
        const authors: RestUser[] = body.users ?? []
        users.push(...authors)
        const names = new Map(authors.map((u) => [u.id, u.name]))
        return (
          body.comments as Array<{
            id: number
            body: string
            plain_body?: string
            public: boolean
            author_id: number
            created_at: string
          }>
        ).map((c) => commentEvent(t, c, names.get(c.author_id)))
      }),
    )
    return { events: perTicket.flat().sort((a, b) => (b.time ?? '').localeCompare(a.time ?? '')), users }
  },
})

function commentEvent(
  t: RestTicket,
  c: {
    id: number
    body: string
    plain_body?: string
    public: boolean
    author_id: number
    created_at: string
  },
  name: string | undefined,
): ZendeskEvent {
  const event = eventFromTicket(
    TICKET_EVENTS.commentAdded,
    t,
    {
      comment: {
        id: String(c.id),
        body: c.plain_body ?? c.body,
        is_public: c.public,
        author: { id: String(c.author_id), ...(name ? { name } : {}) },
      },
    },
    c.created_at,
  )
  return {
    ...event,
    id: `recent:comment:${c.id}`,
    detail: { ...event.detail, actor_id: String(c.author_id) },
  }
}

const AgentIds = z
  .array(
    z.preprocess(
      (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
      z
        .number({ error: "must be an agent's user id" })
        .int("must be an agent's user id")
        .positive("must be an agent's user id"),
    ),
    { error: 'give a list of agent ids' },
  )
  .max(100)

export const ticketAssigned = ticketTrigger({
  id: 'zendesk.ticket_assigned',
  title: 'Ticket Assigned to Agent',
  description:
    'Starts when a ticket is assigned to an agent (any agent, or only the chosen ones); not when it is unassigned.',
  type: TICKET_EVENTS.assignmentChanged,
  config: {
    agent_ids: AgentIds.optional().describe('Only assignments to these agents; any agent when empty'),
  },
  configOptions: { agent_ids: assigneeOptions },
  accept(event, config) {
    const current = person(event.event.current)
    if (!current) return null
    if (config.agent_ids?.length && !(config.agent_ids as number[]).includes(current.id)) return null
    return { previous: person(event.event.previous), current }
  },
  event: {
    previous: TicketRef.shape.assignee.describe('The agent before, or null'),
    current: TicketRef.shape.assignee.unwrap().describe('The agent it is assigned to now'),
  },
  sample: sampleEvent('ticket.agent_assignment_changed', { previous: null, current: 8447388090494 }),
  async recent({ api }) {
    const { tickets, users } = await recentTickets(api, '-updated_at')
    return {
      events: tickets
        .filter((t) => t.assignee_id !== null)
        .map((t) =>
          eventFromTicket(TICKET_EVENTS.assignmentChanged, t, { current: t.assignee_id, previous: null }),
        ),
      users,
    }
  },
})
