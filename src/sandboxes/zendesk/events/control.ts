import { badRequest, notFound, type ControlInput } from '../../kit/control.ts'
import { handleActAs } from '../api.ts'
import { emptyResponse, jsonResponse, type IncomingRequest, type SandboxResponse } from '../http.ts'
import type { ZendeskSandbox } from '../sandbox.ts'
import type { DeliveryFaultKind } from './deliveries.ts'

/** Control routes for event deliveries and for acting as a person in the agent UI (docs/sandbox.md). */

export interface EventControlContext extends ControlInput {
  sandbox: ZendeskSandbox
  root: string
}
type Handler = (ctx: EventControlContext) => SandboxResponse | Promise<SandboxResponse>

const MAX_WAIT_MS = 60_000
const FAULT_KINDS: DeliveryFaultKind[] = ['duplicate', 'bad_signature', 'stale_timestamp', 'fail']
const isPositiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0
const isNonNegativeInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0

/** `GET /deliveries?account=&webhook=&event_type=&settled=1&timeout_ms=`: with `settled=1` it waits until nothing is pending. */
export const listDeliveries: Handler = async (ctx) => {
  const { query } = ctx.req
  let settled = true
  if (query.get('settled') === '1' || query.get('settled') === 'true') {
    const raw = query.get('timeout_ms')
    settled = await ctx.sandbox.deliveries.settled(
      raw !== null && /^\d+$/.test(raw) ? Math.min(Number(raw), MAX_WAIT_MS) : 5000,
    )
  }
  const deliveries = ctx.sandbox.deliveries.list({
    webhookId: query.get('webhook'),
    eventType: query.get('event_type'),
    account: query.get('account'),
  })
  return jsonResponse(200, { settled, pending: ctx.sandbox.deliveries.pendingCount(), deliveries })
}

export const getDelivery: Handler = (ctx) => {
  const delivery = ctx.sandbox.deliveries.get(ctx.params[0] as string)
  return delivery ? jsonResponse(200, { delivery }) : notFound('no such delivery')
}

export const clearDeliveries: Handler = (ctx) => (ctx.sandbox.deliveries.clear(), emptyResponse(204))

const settingsJson = (ctx: EventControlContext) => ({
  retry_delays_ms: [...ctx.sandbox.deliveries.settings.retryDelaysMs],
  timeout_ms: ctx.sandbox.deliveries.settings.timeoutMs,
})
export const getDeliverySettings: Handler = (ctx) => jsonResponse(200, settingsJson(ctx))

/** `{retry_delays_ms?: number[], timeout_ms?}`. */
export const putDeliverySettings: Handler = (ctx) => {
  const { retry_delays_ms: delays, timeout_ms: timeout } = ctx.body
  if (
    delays !== undefined &&
    !(Array.isArray(delays) && delays.length <= 10 && delays.every(isNonNegativeInt))
  ) {
    return badRequest('retry_delays_ms must be an array of at most 10 non-negative integers')
  }
  if (timeout !== undefined && !isPositiveInt(timeout))
    return badRequest('timeout_ms must be a positive integer')
  if (delays !== undefined) ctx.sandbox.deliveries.settings.retryDelaysMs = [...(delays as number[])]
  if (timeout !== undefined) ctx.sandbox.deliveries.settings.timeoutMs = timeout as number
  return jsonResponse(200, settingsJson(ctx))
}

export const listDeliveryFaults: Handler = (ctx) =>
  jsonResponse(200, { faults: ctx.sandbox.deliveries.faults.map((f) => ({ ...f })) })

/** `{kind: duplicate|bad_signature|stale_timestamp|fail, status?, webhook_id?, event_type?, times?}` → 201. */
export const addDeliveryFault: Handler = (ctx) => {
  const { kind, status, webhook_id: webhookId, event_type: eventType, times } = ctx.body
  if (typeof kind !== 'string' || !(FAULT_KINDS as string[]).includes(kind))
    return badRequest(`kind must be one of ${FAULT_KINDS.join(', ')}`)
  if (status !== undefined && !(isPositiveInt(status) && status >= 100 && status <= 599))
    return badRequest('status must be an HTTP status')
  if (webhookId !== undefined && typeof webhookId !== 'string')
    return badRequest('webhook_id must be a string')
  if (eventType !== undefined && typeof eventType !== 'string')
    return badRequest('event_type must be a string')
  if (times !== undefined && !isPositiveInt(times)) return badRequest('times must be a positive integer')
  const fault = ctx.sandbox.deliveries.addFault({
    kind: kind as DeliveryFaultKind,
    status: (status as number | undefined) ?? null,
    webhook_id: (webhookId as string | undefined) ?? null,
    event_type: (eventType as string | undefined) ?? null,
    remaining: (times as number | undefined) ?? null,
  })
  return jsonResponse(201, { fault })
}

export const clearDeliveryFaults: Handler = (ctx) => {
  ctx.sandbox.deliveries.faults = []
  return emptyResponse(204)
}

const ACT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

/**
 * `POST /accounts/{subdomain}/act {email | user_id, method?, path, body?}`: one API request as
 * that person in the agent UI (no token, no rate limit, no faults; writes via `web`), so tests can
 * change a ticket the way a person would and watch the events. Answers `{status, body}`.
 */
export const act: Handler = async (ctx) => {
  const account = ctx.sandbox.store.account(ctx.params[0] as string)
  if (!account) return notFound(`no account ${ctx.params[0]}`)
  const { email, user_id: userId, path, body } = ctx.body
  const user =
    typeof userId === 'number'
      ? account.users.get(userId)
      : typeof email === 'string'
        ? ctx.sandbox.store.userByEmail(account, email)
        : undefined
  if (!user) return badRequest('give the email or user_id of a user of this account')
  const method = typeof ctx.body.method === 'string' ? ctx.body.method.toUpperCase() : 'GET'
  if (!ACT_METHODS.includes(method)) return badRequest(`method must be one of ${ACT_METHODS.join(', ')}`)
  if (typeof path !== 'string' || !path.startsWith('/api/v2/'))
    return badRequest('path must start with /api/v2/')
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body)))
    return badRequest('body must be an object')
  const url = new URL(path, 'http://sandbox.invalid')
  const apiPath = url.pathname.replace(/\.json$/, '')
  const base = `${ctx.root}/${account.subdomain}`
  const req: IncomingRequest = {
    method,
    path: url.pathname,
    query: url.searchParams,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    rawBody: body === undefined ? undefined : JSON.stringify(body),
    origin: ctx.req.origin,
    remoteAddress: ctx.req.remoteAddress,
  }
  const response = await handleActAs(ctx.sandbox, account, user, req, apiPath, base)
  let answer: unknown = response.payload ?? null
  if ((response.headers['content-type'] ?? '').includes('json') && response.payload)
    answer = JSON.parse(String(response.payload))
  return jsonResponse(200, { status: response.status, body: answer })
}
