import { recordNotFound } from './errors.ts'
import { emptyResponse, jsonResponse, type SandboxResponse } from './http.ts'
import type { DeletedTicket } from './model.ts'
import { paginate } from './pagination.ts'
import type { ApiContext, ApiRoute } from './router.ts'
import { isoSeconds } from './time.ts'

/**
 * Deleted tickets (tickets.yml, "Deleted Tickets"): a soft-deleted ticket can be listed, restored
 * or permanently deleted. Permanent deletion is a background job on real Zendesk; the sandbox does
 * it at once and answers 204, the status Zendesk documents for a single ticket.
 */

function deletedJson(ctx: ApiContext, entry: DeletedTicket): Record<string, unknown> {
  const actor = ctx.account.users.get(entry.actorId)
  return {
    id: entry.ticket.id,
    subject: entry.ticket.subject,
    description: entry.ticket.description,
    actor: { id: entry.actorId, name: actor?.name ?? null },
    deleted_at: isoSeconds(entry.deletedAt),
    previous_state: entry.ticket.status,
  }
}

function find(ctx: ApiContext): DeletedTicket | undefined {
  return ctx.account.deletedTickets.get(Number(ctx.params.id))
}

function list(ctx: ApiContext): SandboxResponse {
  const entries = [...ctx.account.deletedTickets.values()]
  const page = paginate(ctx.req, entries, {
    key: (e) => [e.ticket.id],
    descending: ctx.req.query.get('sort_order') === 'desc',
  })
  if (!page.ok) return page.response
  return jsonResponse(200, { deleted_tickets: page.items.map((e) => deletedJson(ctx, e)), ...page.fields })
}

function restore(ctx: ApiContext): SandboxResponse {
  const entry = find(ctx)
  if (!entry) return recordNotFound()
  ctx.account.deletedTickets.delete(entry.ticket.id)
  ctx.account.tickets.set(entry.ticket.id, entry.ticket)
  ctx.account.comments.set(entry.ticket.id, entry.comments)
  ctx.account.audits.set(entry.ticket.id, entry.audits)
  return emptyResponse(200)
}

function destroyPermanently(ctx: ApiContext): SandboxResponse {
  const entry = find(ctx)
  if (!entry) return recordNotFound()
  ctx.account.deletedTickets.delete(entry.ticket.id)
  return emptyResponse(204)
}

export const deletedTicketRoutes: ApiRoute[] = [
  { method: 'GET', path: '/api/v2/deleted_tickets', access: 'agent', scope: 'tickets', handle: list },
  {
    method: 'PUT',
    path: '/api/v2/deleted_tickets/:id/restore',
    access: 'agent',
    scope: 'tickets',
    handle: restore,
  },
  {
    method: 'DELETE',
    path: '/api/v2/deleted_tickets/:id',
    access: 'agent',
    scope: 'tickets',
    handle: destroyPermanently,
  },
]
