import { publishWrite } from './events/publish.ts'
import { missingParameter } from './errors.ts'
import { isRecord, jsonResponse, type SandboxResponse } from './http.ts'
import type { Ticket } from './model.ts'
import type { ApiContext, ApiRoute } from './router.ts'
import { apiVia, createTicket } from './ticket-write.ts'
import { isoSeconds } from './time.ts'

/**
 * `POST /api/v2/requests` (Zendesk's Requests API, sources: Zendesk requests): how an end user
 * opens a ticket, which `POST /api/v2/tickets` refuses them (agents only). The request becomes a
 * ticket through the same write as the Tickets API (so its audit, events and webhooks are the same),
 * with the caller as requester and submitter. Only what an end user may set is read: `subject` and
 * `comment.body` (plus `priority` and `type`, which Zendesk takes when those fields are editable
 * for end users; the sandbox treats them as editable). The answer is the request object, the end
 * user's view of the ticket.
 */
function requestJson(ticket: Ticket, base: string): Record<string, unknown> {
  return {
    id: ticket.id,
    url: `${base}/api/v2/requests/${ticket.id}.json`,
    subject: ticket.subject,
    description: ticket.description,
    status: ticket.status,
    priority: ticket.priority,
    type: ticket.type,
    requester_id: ticket.requesterId,
    organization_id: ticket.organizationId,
    assignee_id: ticket.assigneeId,
    group_id: ticket.groupId,
    is_public: true,
    via: ticket.via,
    created_at: isoSeconds(ticket.createdAt),
    updated_at: isoSeconds(ticket.updatedAt),
  }
}

function createRequest(ctx: ApiContext): SandboxResponse {
  const root = isRecord(ctx.body) && isRecord(ctx.body.request) ? ctx.body.request : undefined
  if (!root) return missingParameter('request')
  const input: Record<string, unknown> = { requester_id: ctx.user.id }
  for (const name of ['subject', 'priority', 'type']) if (name in root) input[name] = root[name]
  if (isRecord(root.comment)) input.comment = { body: root.comment.body, public: true }
  const result = createTicket(
    ctx.store,
    ctx.account,
    input,
    { user: ctx.user, via: ctx.via ?? apiVia() },
    ctx.now,
  )
  if (!result.ok) return result.errors.response()
  publishWrite(ctx.sandbox, ctx.account, result.ticket, result.audit)
  const request = requestJson(result.ticket, ctx.base)
  return jsonResponse(201, { request }, { location: request.url as string })
}

export const requestRoutes: ApiRoute[] = [
  { method: 'POST', path: '/api/v2/requests', access: 'any-user', scope: 'requests', handle: createRequest },
]
