import { randomBytes } from 'node:crypto'
import { emptyResponse, isRecord, jsonResponse, type SandboxResponse } from './http.ts'
import { ulid } from './ids.ts'
import type { Webhook } from './model.ts'
import { paginateCursor, sortItems, type Ordering } from './pagination.ts'
import type { ApiContext, ApiRoute } from './router.ts'
import { isoSeconds } from './time.ts'

/**
 * Webhooks API, CRUD only (sources: Zendesk webhooks, Z-WHAPI): ULID-like string ids, admins only.
 * Deliveries of ticket events are in events/. The webhooks service answers errors in the
 * `{"errors":[{code,title,detail,source}]}` envelope and updates with 204 [UNV details].
 */

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']
const REQUEST_FORMATS = ['json', 'xml', 'form_encoded']
const STATUSES = ['active', 'inactive'] as const
const EVENT_SUBSCRIPTION_PREFIX = 'zen:event-type:'

interface WebhookError {
  code: string
  title: string
  detail?: string
  source?: { pointer: string }
}

function webhookErrors(status: number, errors: WebhookError[]): SandboxResponse {
  return jsonResponse(status, { errors })
}

function notFound(id: string): SandboxResponse {
  return webhookErrors(404, [
    { code: 'RecordNotFound', title: 'Not Found', detail: `Webhook ${id} not found` },
  ])
}

export function newSigningSecret(): string {
  return randomBytes(32).toString('base64')
}

function webhookJson(webhook: Webhook): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: webhook.id,
    name: webhook.name,
    status: webhook.status,
    subscriptions: [...webhook.subscriptions],
    created_at: isoSeconds(webhook.createdAt),
    created_by: webhook.createdBy,
    updated_at: isoSeconds(webhook.updatedAt),
    updated_by: webhook.updatedBy,
    description: webhook.description,
    endpoint: webhook.endpoint,
    http_method: webhook.httpMethod,
    request_format: webhook.requestFormat,
    custom_headers: { ...webhook.customHeaders },
    external_source: webhook.externalSource,
  }
  // Credentials are write-only: the type is shown, never the data.
  if (webhook.authentication) {
    body.authentication = {
      type: webhook.authentication.type,
      add_position: webhook.authentication.add_position ?? 'header',
    }
  }
  return body
}

type WebhookFields = Pick<
  Webhook,
  | 'name'
  | 'description'
  | 'endpoint'
  | 'httpMethod'
  | 'requestFormat'
  | 'status'
  | 'subscriptions'
  | 'authentication'
  | 'customHeaders'
  | 'externalSource'
>

/** Validates a complete webhook (create, PUT, or PATCH after merging). */
function validate(
  input: Record<string, unknown>,
): { ok: true; fields: WebhookFields } | { ok: false; errors: WebhookError[] } {
  const errors: WebhookError[] = []
  const bad = (field: string, detail: string) =>
    errors.push({
      code: 'InvalidInput',
      title: 'Invalid input',
      detail,
      source: { pointer: `/webhook/${field}` },
    })
  const name = typeof input.name === 'string' ? input.name.trim() : ''
  if (!name) bad('name', 'name is required')
  let endpoint = ''
  try {
    const url = new URL(String(input.endpoint ?? ''))
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme')
    endpoint = url.toString()
  } catch {
    bad('endpoint', 'endpoint must be an absolute http(s) URL')
  }
  const httpMethod = typeof input.http_method === 'string' ? input.http_method.toUpperCase() : ''
  if (!HTTP_METHODS.includes(httpMethod))
    bad('http_method', `http_method must be one of ${HTTP_METHODS.join(', ')}`)
  const requestFormat = typeof input.request_format === 'string' ? input.request_format : ''
  if (!REQUEST_FORMATS.includes(requestFormat))
    bad('request_format', `request_format must be one of ${REQUEST_FORMATS.join(', ')}`)
  const status = input.status ?? 'active'
  if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status))
    bad('status', 'status must be active or inactive')
  const subscriptions = input.subscriptions ?? []
  if (!Array.isArray(subscriptions) || !subscriptions.every((s) => typeof s === 'string')) {
    bad('subscriptions', 'subscriptions must be an array of strings')
  } else if (
    subscriptions.some((s: string) => s.startsWith(EVENT_SUBSCRIPTION_PREFIX)) &&
    (httpMethod !== 'POST' || requestFormat !== 'json')
  ) {
    // Z-WHAPI: event subscriptions require POST and json.
    bad('subscriptions', 'webhooks subscribed to events must use http_method POST and request_format json')
  }
  const authentication = input.authentication ?? null
  if (authentication !== null && !isRecord(authentication))
    bad('authentication', 'authentication must be an object')
  const customHeaders = input.custom_headers ?? {}
  if (!isRecord(customHeaders)) bad('custom_headers', 'custom_headers must be an object')
  if (errors.length > 0) return { ok: false, errors }
  return {
    ok: true,
    fields: {
      name,
      description: typeof input.description === 'string' ? input.description : null,
      endpoint,
      httpMethod,
      requestFormat,
      status: status as Webhook['status'],
      subscriptions: subscriptions as string[],
      authentication: authentication as Webhook['authentication'],
      customHeaders: Object.fromEntries(
        Object.entries(customHeaders as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
      ),
      externalSource: isRecord(input.external_source) ? input.external_source : null,
    },
  }
}

function webhookRoot(ctx: ApiContext): Record<string, unknown> | undefined {
  return isRecord(ctx.body) && isRecord(ctx.body.webhook) ? ctx.body.webhook : undefined
}

const missingRoot = () =>
  webhookErrors(400, [{ code: 'InvalidInput', title: 'Invalid input', detail: 'webhook object is required' }])

/** The request-shaped view of a stored webhook, for PATCH merging. */
function asInput(webhook: Webhook): Record<string, unknown> {
  return {
    name: webhook.name,
    description: webhook.description,
    endpoint: webhook.endpoint,
    http_method: webhook.httpMethod,
    request_format: webhook.requestFormat,
    status: webhook.status,
    subscriptions: webhook.subscriptions,
    authentication: webhook.authentication,
    custom_headers: webhook.customHeaders,
    external_source: webhook.externalSource,
  }
}

function list(ctx: ApiContext): SandboxResponse {
  const { query } = ctx.req
  const nameContains = query.get('filter[name_contains]')?.toLowerCase()
  const status = query.get('filter[status]')
  const sort = query.get('sort') ?? 'name'
  const field = sort.replace(/^-/, '') === 'status' ? 'status' : 'name'
  const ordering: Ordering<Webhook> = {
    key: (w) => [field === 'status' ? w.status : w.name.toLowerCase(), w.id],
    descending: sort.startsWith('-'),
  }
  const webhooks = [...ctx.account.webhooks.values()].filter(
    (w) => (!nameContains || w.name.toLowerCase().includes(nameContains)) && (!status || w.status === status),
  )
  // The webhooks list supports cursor pagination only.
  const page = paginateCursor(ctx.req, sortItems(webhooks, ordering), ordering)
  if (!page.ok) return page.response
  return jsonResponse(200, { webhooks: page.items.map(webhookJson), ...page.fields })
}

function create(ctx: ApiContext): SandboxResponse {
  const input = webhookRoot(ctx)
  if (!input) return missingRoot()
  const result = validate(input)
  if (!result.ok) return webhookErrors(400, result.errors)
  const requested =
    isRecord(input.signing_secret) && typeof input.signing_secret.secret === 'string'
      ? input.signing_secret.secret
      : null
  const webhook: Webhook = {
    ...result.fields,
    id: ulid(ctx.now),
    signingSecret: requested ?? newSigningSecret(),
    createdBy: String(ctx.user.id),
    updatedBy: String(ctx.user.id),
    createdAt: ctx.now,
    updatedAt: ctx.now,
  }
  ctx.account.webhooks.set(webhook.id, webhook)
  return jsonResponse(201, { webhook: webhookJson(webhook) })
}

function withWebhook(ctx: ApiContext, fn: (webhook: Webhook) => SandboxResponse): SandboxResponse {
  const id = ctx.params.webhook_id as string
  const webhook = ctx.account.webhooks.get(id)
  return webhook ? fn(webhook) : notFound(id)
}

function replace(ctx: ApiContext, merge: boolean): SandboxResponse {
  return withWebhook(ctx, (webhook) => {
    const input = webhookRoot(ctx)
    if (!input) return missingRoot()
    // PATCH is a JSON merge patch (RFC 7396) over the stored webhook: null clears a field.
    // PUT replaces the whole webhook.
    const merged = merge ? { ...asInput(webhook), ...input } : input
    const result = validate(merged)
    if (!result.ok) return webhookErrors(400, result.errors)
    Object.assign(webhook, result.fields, { updatedAt: ctx.now, updatedBy: String(ctx.user.id) })
    return emptyResponse(204)
  })
}

export const webhookRoutes: ApiRoute[] = [
  { method: 'GET', path: '/api/v2/webhooks', access: 'admin', scope: 'webhooks', handle: list },
  { method: 'POST', path: '/api/v2/webhooks', access: 'admin', scope: 'webhooks', handle: create },
  {
    method: 'GET',
    path: '/api/v2/webhooks/{webhook_id}',
    access: 'admin',
    scope: 'webhooks',
    handle: (ctx) => withWebhook(ctx, (w) => jsonResponse(200, { webhook: webhookJson(w) })),
  },
  {
    method: 'PUT',
    path: '/api/v2/webhooks/{webhook_id}',
    access: 'admin',
    scope: 'webhooks',
    handle: (ctx) => replace(ctx, false),
  },
  {
    method: 'PATCH',
    path: '/api/v2/webhooks/{webhook_id}',
    access: 'admin',
    scope: 'webhooks',
    handle: (ctx) => replace(ctx, true),
  },
  {
    method: 'DELETE',
    path: '/api/v2/webhooks/{webhook_id}',
    access: 'admin',
    scope: 'webhooks',
    handle: (ctx) =>
      withWebhook(ctx, (w) => {
        ctx.account.webhooks.delete(w.id)
        return emptyResponse(204)
      }),
  },
  {
    method: 'GET',
    path: '/api/v2/webhooks/{webhook_id}/signing_secret',
    access: 'admin',
    scope: 'webhooks',
    handle: (ctx) =>
      withWebhook(ctx, (w) =>
        jsonResponse(200, { signing_secret: { algorithm: 'sha256', secret: w.signingSecret } }),
      ),
  },
  {
    // Reset: a new secret replaces the old one at once [UNV: 201 as for other creations].
    method: 'POST',
    path: '/api/v2/webhooks/{webhook_id}/signing_secret',
    access: 'admin',
    scope: 'webhooks',
    handle: (ctx) =>
      withWebhook(ctx, (w) => {
        w.signingSecret = newSigningSecret()
        w.updatedAt = ctx.now
        return jsonResponse(201, { signing_secret: { algorithm: 'sha256', secret: w.signingSecret } })
      }),
  },
]
