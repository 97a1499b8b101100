import { recordNotFound } from './errors.ts'
import { jsonResponse, type SandboxResponse } from './http.ts'
import type { Comment } from './model.ts'
import { paginate, usesCursorPagination, type Ordering } from './pagination.ts'
import { commentJson } from './presenters.ts'
import type { ApiContext, ApiRoute } from './router.ts'
import { usersSideload, wantsUsers } from './sideload.ts'
import { findTicket } from './tickets.ts'
import { isoSeconds } from './time.ts'

/**
 * Ticket comments (tickets.yml `ListTicketComments`). Ascending by creation by default; cursor
 * pagination sorts with `sort=created_at|-created_at`, offset with `sort_order=asc|desc`.
 *
 * There is deliberately no `POST /tickets/{id}/comments`: Zendesk has no endpoint that creates
 * comments (they are added through `PUT /tickets/{id}` with `ticket.comment`, Z-COMM), so a POST
 * there gets what any unrouted request gets: 404 `InvalidEndpoint`.
 */

function commentOrdering(ctx: ApiContext): Ordering<Comment> {
  const { query } = ctx.req
  const descending = usesCursorPagination(query)
    ? query.get('sort') === '-created_at'
    : query.get('sort_order') === 'desc'
  return { key: (c) => [c.createdAt, c.id], descending }
}

function listComments(ctx: ApiContext): SandboxResponse {
  const ticket = findTicket(ctx)
  if (!ticket) return recordNotFound()
  const comments = ctx.account.comments.get(ticket.id) ?? []
  const page = paginate(ctx.req, comments, commentOrdering(ctx))
  if (!page.ok) return page.response
  const users = wantsUsers(ctx)
    ? {
        users: usersSideload(
          ctx,
          ctx.account,
          page.items.map((c) => c.authorId),
        ),
      }
    : {}
  return jsonResponse(200, { comments: page.items.map(commentJson), ...users, ...page.fields })
}

function countComments(ctx: ApiContext): SandboxResponse {
  const ticket = findTicket(ctx)
  if (!ticket) return recordNotFound()
  const value = (ctx.account.comments.get(ticket.id) ?? []).length
  return jsonResponse(200, { count: { value, refreshed_at: isoSeconds(ctx.now) } })
}

export const commentRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/api/v2/tickets/:id/comments',
    access: 'agent',
    scope: 'tickets',
    handle: listComments,
  },
  {
    method: 'GET',
    path: '/api/v2/tickets/:id/comments/count',
    access: 'agent',
    scope: 'tickets',
    handle: countComments,
  },
]
