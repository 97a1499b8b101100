import { jsonResponse, type SandboxResponse } from '../http.ts'
import type { ApiContext, ApiRoute } from '../router.ts'
import type { Delivery } from './deliveries.ts'

/**
 * The webhook's invocation log through the API, as node-zendesk's `listInvocations` and
 * `listInvocationAttempts` call it (`/api/v2/webhooks/{id}/invocations[/{invocation_id}/attempts]`).
 * The reference gives no shapes; the sandbox's choice (docs/sandbox.md, "Event deliveries"): an
 * invocation is `{id, created_at, event_id, event_type, latest_completion_status, status}`, an
 * attempt `{id, invocation_id, status, completed_at, response: {status}}`; newest first.
 */

const STATUS: Record<Delivery['state'], string> = {
  pending: 'pending',
  delivered: 'success',
  failed: 'failed',
  cancelled: 'cancelled',
}

function invocationJson(d: Delivery): Record<string, unknown> {
  const last = d.attempts.at(-1)
  return {
    id: d.id,
    created_at: d.created_at,
    event_id: d.event_id,
    event_type: d.event_type,
    latest_completion_status: last?.status ?? null,
    status: STATUS[d.state],
  }
}

function notFound(detail: string): SandboxResponse {
  return jsonResponse(404, { errors: [{ code: 'RecordNotFound', title: 'Not Found', detail }] })
}

function ofWebhook(ctx: ApiContext): Delivery[] | undefined {
  const id = ctx.params.webhook_id as string
  if (!ctx.account.webhooks.has(id)) return undefined
  return ctx.sandbox.deliveries.list({ webhookId: id, account: ctx.account.subdomain }).reverse()
}

export const invocationRoutes: ApiRoute[] = [
  {
    method: 'GET',
    path: '/api/v2/webhooks/{webhook_id}/invocations',
    access: 'admin',
    scope: 'webhooks',
    handle: (ctx) => {
      const list = ofWebhook(ctx)
      return list
        ? jsonResponse(200, {
            invocations: list.map(invocationJson),
            meta: { has_more: false, after_cursor: null, before_cursor: null },
          })
        : notFound(`Webhook ${ctx.params.webhook_id} not found`)
    },
  },
  {
    method: 'GET',
    path: '/api/v2/webhooks/{webhook_id}/invocations/{invocation_id}/attempts',
    access: 'admin',
    scope: 'webhooks',
    handle: (ctx) => {
      const invocation = ofWebhook(ctx)?.find((d) => d.id === ctx.params.invocation_id)
      if (!invocation) return notFound(`Invocation ${ctx.params.invocation_id} not found`)
      return jsonResponse(200, {
        attempts: invocation.attempts.map((a) => ({
          id: `${invocation.id}-${a.attempt}`,
          invocation_id: invocation.id,
          status: a.status !== null && a.status < 300 ? 'success' : 'failed',
          completed_at: a.at,
          response: { status: a.status },
        })),
      })
    },
  },
]
