import { invalidPaginationParameter, missingParameter, recordNotFound } from './errors.ts'
import { emptyResponse, isRecord, jsonResponse, type SandboxResponse } from './http.ts'
import type { Ticket } from './model.ts'
import { paginate, usesCursorPagination, type Ordering } from './pagination.ts'
import { auditJson, ticketJson } from './presenters.ts'
import type { ApiContext, ApiRoute } from './router.ts'
import { TICKET_SORT_KEYS } from './ticket-order.ts'
import { apiVia, createTicket, updateTicket, type UpdateResult } from './ticket-write.ts'
import { usersSideload, wantsUsers } from './sideload.ts'
import { publishWrite } from './events/publish.ts'
import { isoSeconds } from './time.ts'

/** Tickets API (tickets.yml): list, create (201), show, update (200), delete (204). */

/** Cursor pagination sorts only by these (a probe got 400 InvalidPaginationParameter for others). */
const CURSOR_SORTS = ['id', 'updated_at', 'status']
/** Offset pagination `sort_by` values the sandbox honours; others fall back to id. */
const OFFSET_SORTS = [
  'id',
  'created_at',
  'updated_at',
  'status',
  'priority',
  'subject',
  'requester',
  'assignee',
]

export function findTicket(ctx: ApiContext): Ticket | undefined {
  return ctx.account.tickets.get(Number(ctx.params.id))
}

/**
 * Ordering of ticket lists: offset uses `sort_by`/`sort_order` (default id asc); cursor uses
 * `sort=[-]field` and, as observed on Zendesk, ignores `sort_by`/`sort_order`.
 */
function ticketOrdering(ctx: ApiContext): Ordering<Ticket> | SandboxResponse {
  const { query } = ctx.req
  if (usesCursorPagination(query)) {
    const sort = query.get('sort') ?? 'id'
    const field = sort.replace(/^-/, '')
    if (!CURSOR_SORTS.includes(field)) {
      return invalidPaginationParameter(
        `sort must be one of ${CURSOR_SORTS.map((s) => `${s}, -${s}`).join(', ')}`,
      )
    }
    return { key: TICKET_SORT_KEYS[field] as Ordering<Ticket>['key'], descending: sort.startsWith('-') }
  }
  const sortBy = query.get('sort_by') ?? 'id'
  const key = OFFSET_SORTS.includes(sortBy) ? TICKET_SORT_KEYS[sortBy] : TICKET_SORT_KEYS.id
  return { key: key as Ordering<Ticket>['key'], descending: query.get('sort_order') === 'desc' }
}

function listTickets(ctx: ApiContext): SandboxResponse {
  const ordering = ticketOrdering(ctx)
  if ('status' in ordering) return ordering
  const externalId = ctx.req.query.get('external_id')
  const tickets = [...ctx.account.tickets.values()].filter(
    (t) => externalId === null || t.externalId === externalId,
  )
  const page = paginate(ctx.req, tickets, ordering)
  if (!page.ok) return page.response
  const users = wantsUsers(ctx)
    ? {
        users: usersSideload(
          ctx,
          ctx.account,
          page.items.flatMap((t) => [t.requesterId, t.submitterId, t.assigneeId, ...t.collaboratorIds]),
        ),
      }
    : {}
  return jsonResponse(200, {
    tickets: page.items.map((t) => ticketJson(ctx.account, t, ctx.base)),
    ...users,
    ...page.fields,
  })
}

function showMany(ctx: ApiContext): SandboxResponse {
  const ids = (ctx.req.query.get('ids') ?? '').split(',').map(Number).filter(Number.isInteger).slice(0, 100)
  const tickets = ids.map((id) => ctx.account.tickets.get(id)).filter((t): t is Ticket => t !== undefined)
  return jsonResponse(200, {
    tickets: tickets.map((t) => ticketJson(ctx.account, t, ctx.base)),
    next_page: null,
    previous_page: null,
    count: tickets.length,
  })
}

function countTickets(ctx: ApiContext): SandboxResponse {
  return jsonResponse(200, { count: { value: ctx.account.tickets.size, refreshed_at: isoSeconds(ctx.now) } })
}

function ticketRoot(ctx: ApiContext): Record<string, unknown> | undefined {
  return isRecord(ctx.body) && isRecord(ctx.body.ticket) ? ctx.body.ticket : undefined
}

function writeResponse(ctx: ApiContext, result: UpdateResult, status: number): SandboxResponse {
  if (!result.ok) {
    if ('conflict' in result) {
      return jsonResponse(409, {
        error: 'UpdateConflict',
        description:
          'Safe Update prevented the update due to outdated ticket data. Please fetch the latest ticket data and try again.',
      })
    }
    return result.errors.response()
  }
  // Only a write that changed something sends events (an empty update makes no audit).
  if (result.audit.events.length > 0) publishWrite(ctx.sandbox, ctx.account, result.ticket, result.audit)
  const ticket = ticketJson(ctx.account, result.ticket, ctx.base)
  const headers: Record<string, string> = status === 201 ? { location: ticket.url as string } : {}
  return jsonResponse(status, { ticket, audit: auditJson(ctx.account, result.audit) }, headers)
}

function create(ctx: ApiContext): SandboxResponse {
  const input = ticketRoot(ctx)
  if (!input) return missingParameter('ticket')
  const result = createTicket(
    ctx.store,
    ctx.account,
    input,
    { user: ctx.user, via: ctx.via ?? apiVia() },
    ctx.now,
  )
  return writeResponse(ctx, result, 201)
}

function show(ctx: ApiContext): SandboxResponse {
  const ticket = findTicket(ctx)
  if (!ticket) return recordNotFound()
  const users = wantsUsers(ctx)
    ? {
        users: usersSideload(ctx, ctx.account, [
          ticket.requesterId,
          ticket.submitterId,
          ticket.assigneeId,
          ...ticket.collaboratorIds,
        ]),
      }
    : {}
  return jsonResponse(200, { ticket: ticketJson(ctx.account, ticket, ctx.base), ...users })
}

function update(ctx: ApiContext): SandboxResponse {
  const ticket = findTicket(ctx)
  if (!ticket) return recordNotFound()
  const input = ticketRoot(ctx)
  if (!input) return missingParameter('ticket')
  const result = updateTicket(
    ctx.store,
    ctx.account,
    ticket,
    input,
    { user: ctx.user, via: ctx.via ?? apiVia() },
    ctx.now,
  )
  return writeResponse(ctx, result, 200)
}

/**
 * Zendesk soft-deletes: the ticket leaves the API (reads then 404) and waits in deleted tickets,
 * from where it can be restored or permanently deleted (deleted-tickets.ts).
 */
function destroy(ctx: ApiContext): SandboxResponse {
  const ticket = findTicket(ctx)
  if (!ticket) return recordNotFound()
  ctx.account.deletedTickets.set(ticket.id, {
    ticket,
    comments: ctx.account.comments.get(ticket.id) ?? [],
    audits: ctx.account.audits.get(ticket.id) ?? [],
    deletedAt: ctx.now,
    actorId: ctx.user.id,
  })
  ctx.account.tickets.delete(ticket.id)
  ctx.account.comments.delete(ticket.id)
  ctx.account.audits.delete(ticket.id)
  return emptyResponse(204)
}

function listAudits(ctx: ApiContext): SandboxResponse {
  const ticket = findTicket(ctx)
  if (!ticket) return recordNotFound()
  const audits = ctx.account.audits.get(ticket.id) ?? []
  const page = paginate(ctx.req, audits, {
    key: (a) => [a.createdAt, a.id],
    descending: ctx.req.query.get('sort_order') === 'desc',
  })
  if (!page.ok) return page.response
  return jsonResponse(200, { audits: page.items.map((a) => auditJson(ctx.account, a)), ...page.fields })
}

export const ticketRoutes: ApiRoute[] = [
  { method: 'GET', path: '/api/v2/tickets', access: 'agent', scope: 'tickets', handle: listTickets },
  { method: 'POST', path: '/api/v2/tickets', access: 'agent', scope: 'tickets', handle: create },
  { method: 'GET', path: '/api/v2/tickets/count', access: 'agent', scope: 'tickets', handle: countTickets },
  { method: 'GET', path: '/api/v2/tickets/show_many', access: 'agent', scope: 'tickets', handle: showMany },
  { method: 'GET', path: '/api/v2/tickets/:id', access: 'agent', scope: 'tickets', handle: show },
  { method: 'PUT', path: '/api/v2/tickets/:id', access: 'agent', scope: 'tickets', handle: update },
  { method: 'DELETE', path: '/api/v2/tickets/:id', access: 'agent', scope: 'tickets', handle: destroy },
  {
    method: 'GET',
    path: '/api/v2/tickets/:id/audits',
    access: 'agent',
    scope: 'tickets',
    handle: listAudits,
  },
]
