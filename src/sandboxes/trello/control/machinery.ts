import { emptyResponse, jsonResponse } from '../http.ts'
import { DEFAULT_RATE_LIMITS } from '../rate-limit.ts'
import {
  badRequest,
  isNonNegativeInt,
  isPositiveInt,
  notFound,
  type ControlContext,
  type ControlHandler,
} from './common.ts'

/** Trello's own control routes for its machinery: webhook deliveries and rate limits (the rest is the kit's). */

/** Longest a `GET /deliveries?settled=1` may wait. */
const MAX_WAIT_MS = 60_000

/**
 * `GET /deliveries?webhook=&action_type=&settled=1&timeout_ms=`: with `settled=1` the answer
 * waits until no delivery is pending (or `timeout_ms`, default 5000, passes; then
 * `settled: false`). Tests await webhook deliveries this way.
 */
export const listDeliveries: ControlHandler = async (ctx) => {
  const { query } = ctx.req
  let settled = true
  if (query.get('settled') === '1' || query.get('settled') === 'true') {
    const raw = query.get('timeout_ms')
    const timeout = raw !== null && /^\d+$/.test(raw) ? Math.min(Number(raw), MAX_WAIT_MS) : 5000
    settled = await ctx.sb.deliveries.settled(timeout)
  }
  const deliveries = ctx.sb.deliveries.list({
    webhookId: query.get('webhook'),
    actionType: query.get('action_type'),
  })
  return jsonResponse(200, { settled, pending: ctx.sb.deliveries.pendingCount(), deliveries })
}

export const getDelivery: ControlHandler = (ctx) => {
  const delivery = ctx.sb.deliveries.get(ctx.params[0] as string)
  return delivery ? jsonResponse(200, { delivery }) : notFound('no such delivery')
}
export const clearDeliveries: ControlHandler = (ctx) => (ctx.sb.deliveries.clear(), emptyResponse(204))

const deliverySettingsJson = (ctx: ControlContext) => ({
  retry_delays_ms: [...ctx.sb.deliveries.settings.retryDelaysMs],
  timeout_ms: ctx.sb.deliveries.settings.timeoutMs,
  callback_check_timeout_ms: ctx.sb.callbackCheckTimeoutMs,
})

export const getDeliverySettings: ControlHandler = (ctx) => jsonResponse(200, deliverySettingsJson(ctx))

/** `{retry_delays_ms?: number[], timeout_ms?, callback_check_timeout_ms?}`. */
export const putDeliverySettings: ControlHandler = (ctx) => {
  const { retry_delays_ms: delays, timeout_ms: timeout, callback_check_timeout_ms: checkTimeout } = ctx.body
  if (
    delays !== undefined &&
    !(Array.isArray(delays) && delays.length <= 10 && delays.every(isNonNegativeInt))
  ) {
    return badRequest('retry_delays_ms must be an array of at most 10 non-negative integers')
  }
  if (timeout !== undefined && !isPositiveInt(timeout))
    return badRequest('timeout_ms must be a positive integer')
  if (checkTimeout !== undefined && !isPositiveInt(checkTimeout))
    return badRequest('callback_check_timeout_ms must be a positive integer')
  if (delays !== undefined) ctx.sb.deliveries.settings.retryDelaysMs = [...(delays as number[])]
  if (timeout !== undefined) ctx.sb.deliveries.settings.timeoutMs = timeout as number
  if (checkTimeout !== undefined) ctx.sb.callbackCheckTimeoutMs = checkTimeout as number
  return jsonResponse(200, deliverySettingsJson(ctx))
}

const limitsJson = (ctx: ControlContext) => {
  const s = ctx.sb.rateLimiter.settings
  return { token_max: s.tokenMax, key_max: s.keyMax, interval_ms: s.intervalMs, disabled: s.disabled }
}

export const getRateLimits: ControlHandler = (ctx) => jsonResponse(200, limitsJson(ctx))

/** `{token_max?, key_max?, interval_ms?, disabled?}`, or `{reset: true}` for Trello's defaults. */
export const putRateLimits: ControlHandler = (ctx) => {
  const { token_max: tokenMax, key_max: keyMax, interval_ms: intervalMs, disabled, reset } = ctx.body
  for (const [name, value] of [
    ['token_max', tokenMax],
    ['key_max', keyMax],
    ['interval_ms', intervalMs],
  ] as const) {
    if (value !== undefined && !isPositiveInt(value)) return badRequest(`${name} must be a positive integer`)
  }
  if (disabled !== undefined && typeof disabled !== 'boolean') return badRequest('disabled must be a boolean')
  const settings = ctx.sb.rateLimiter.settings
  if (reset === true) Object.assign(settings, DEFAULT_RATE_LIMITS)
  if (tokenMax !== undefined) settings.tokenMax = tokenMax as number
  if (keyMax !== undefined) settings.keyMax = keyMax as number
  if (intervalMs !== undefined) settings.intervalMs = intervalMs as number
  if (disabled !== undefined) settings.disabled = disabled
  return jsonResponse(200, limitsJson(ctx))
}
