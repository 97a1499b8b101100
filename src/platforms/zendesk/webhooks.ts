import { createHash, createHmac } from 'node:crypto'
import { AppError, invalidInput } from '../../core/errors.ts'
import type { ToolContext } from '../../core/tools/define.ts'
import type { Delivery, EventCandidate, Verification, WebhookFacts } from '../../core/triggers/define.ts'
import { matchesSignature } from '../../core/triggers/signatures.ts'
import { isTicketEvent, SUBSCRIBED_EVENTS } from './triggers/payload.ts'

/**
 * Zendesk's event webhooks (docs/triggers/zendesk.md, "Facts"; sources: Zendesk webhooks): one per
 * integration, subscribed to the five ticket event types, so no business rule is added to the
 * customer's account. Each delivery is one event, signed with the webhook's own signing secret as
 * base64(HMAC-SHA256(timestamp + body)).
 */

export const SIGNATURE_HEADER = 'x-zendesk-webhook-signature'
export const TIMESTAMP_HEADER = 'x-zendesk-webhook-signature-timestamp'
export const INVOCATION_HEADER = 'x-zendesk-webhook-invocation-id'
/**
 * Sent back with every delivery as one of the webhook's `custom_headers`: the subdomain, so an
 * event's actor can be named as the integration's own account is (`{subdomain}:{user id}`), which
 * the loop guard compares. The payload carries only the numeric account id.
 */
export const ACCOUNT_HEADER = 'x-switchyard-account'
/** Deliveries older or newer than this are refused: a captured one cannot be replayed later. */
export const MAX_SKEW_MS = 300_000
/** Answers to a webhook that is already there [UNV: Zendesk's wording is not in the reference]. */
const ALREADY_EXISTS = /already|exists|taken|duplicate/i

interface RemoteWebhook {
  id: string
  endpoint: string
}

const isNotFound = (err: unknown) =>
  err instanceof AppError && (err.code === 'not_found' || err.extras.upstreamStatus === 404)

export function signature(secret: string, timestamp: string, rawBody: Buffer): Buffer {
  return createHmac('sha256', secret).update(Buffer.from(timestamp, 'utf8')).update(rawBody).digest()
}

/** Our webhook for this address, among the account's (the address holds a token unique to it). */
async function findOwn(ctx: ToolContext, endpoint: string): Promise<RemoteWebhook | undefined> {
  let after: string | undefined
  for (let page = 0; page < 20; page++) {
    const body = await ctx.api.get('/api/v2/webhooks', {
      'page[size]': 100,
      ...(after ? { 'page[after]': after } : {}),
    })
    const found = (body.webhooks as RemoteWebhook[] | undefined)?.find((w) => w.endpoint === endpoint)
    if (found || !body.meta?.has_more) return found
    after = body.meta.after_cursor
  }
  return undefined
}

async function signingSecret(ctx: ToolContext, id: string): Promise<string> {
  const body = await ctx.api.get(`/api/v2/webhooks/${encodeURIComponent(id)}/signing_secret`)
  const secret = body?.signing_secret?.secret
  if (typeof secret !== 'string' || !secret)
    throw new AppError('upstream_error', "Zendesk did not give the webhook's signing secret")
  return secret
}

/** Checks the signature over the timestamp and raw bytes, within the window; never throws. */
async function verify(delivery: Delivery, secrets: { hookSecret?: string }): Promise<Verification> {
  // Fail closed: without the webhook's secret nothing can be checked, and Zendesk cannot confirm events.
  if (!secrets.hookSecret) return 'unverifiable'
  const timestamp = delivery.headers[TIMESTAMP_HEADER]?.trim()
  if (!timestamp) return 'invalid'
  const at = Date.parse(timestamp)
  if (Number.isNaN(at) || Math.abs(Date.now() - at) > MAX_SKEW_MS) return 'invalid'
  return matchesSignature(
    delivery.headers[SIGNATURE_HEADER],
    signature(secrets.hookSecret, timestamp, delivery.rawBody),
    'base64',
  )
}

/**
 * One event per delivery, keyed by its event id: a retry is a duplicate. An event without an id is
 * keyed by a digest of its signed bytes, never by `x-zendesk-webhook-invocation-id`: the signature
 * covers only the timestamp and the body, so a header key would let one captured delivery, replayed
 * with other invocation ids inside the signature's window, start a run each time (issue 22, §6).
 */
function parse(delivery: Delivery): EventCandidate[] {
  let body: unknown
  try {
    body = JSON.parse(delivery.rawBody.toString('utf8'))
  } catch {
    throw invalidInput([
      { field: 'body', message: 'is not JSON; Zendesk sends one event as {"type", "id", "detail", "event"}' },
    ])
  }
  if (!isTicketEvent(body))
    throw invalidInput([
      { field: 'body', message: 'is not a Zendesk ticket event (type, id, detail with the ticket, event)' },
    ])
  const dedupeKey = body.id || `body:${createHash('sha256').update(delivery.rawBody).digest('base64url')}`
  const subdomain = delivery.headers[ACCOUNT_HEADER]?.trim()
  const actor = body.detail.actor_id
  return [
    {
      dedupeKey,
      type: body.type,
      raw: body,
      ...(subdomain && (typeof actor === 'string' || typeof actor === 'number') && String(actor)
        ? { actorId: `${subdomain}:${actor}` }
        : {}),
    },
  ]
}

export const zendeskWebhooks: WebhookFacts = {
  managed: true,
  // Zendesk retries "certain HTTP response codes" behind a circuit breaker (platform-apis.md, Zendesk
  // webhooks, "Retries"); the schedule is not documented (unverified: 429/503 honoured when
  // Retry-After is at most 60 s; the breaker looks at 5 minutes). A day is far beyond either.
  retryWindowMs: 24 * 60 * 60 * 1000,
  async subscribe(ctx, hook) {
    const webhook = {
      name: `${hook.description} ticket events`,
      description: `${hook.description}: the ticket events of this integration's triggers`,
      endpoint: hook.callbackUrl,
      http_method: 'POST',
      request_format: 'json',
      status: 'active',
      subscriptions: SUBSCRIBED_EVENTS,
      custom_headers: { [ACCOUNT_HEADER]: ctx.integration.fields.subdomain ?? '' },
    }
    let id: string
    try {
      id = (await ctx.api.post('/api/v2/webhooks', { webhook })).webhook.id
    } catch (err) {
      if (!(
        err instanceof AppError &&
        [409, 422].includes(err.extras.upstreamStatus as number) &&
        (err.extras.upstreamStatus === 409 || ALREADY_EXISTS.test(err.message))
      ))
        throw err
      const existing = await findOwn(ctx, hook.callbackUrl)
      if (!existing)
        throw new AppError(
          'conflict',
          "Zendesk says this webhook already exists, but it is not among the account's webhooks",
          { cause: err },
        )
      id = existing.id
    }
    // The secret is a second call: the webhook exists from here on, whatever that call answers.
    await hook.created?.(id)
    return { remoteId: id, secret: await signingSecret(ctx, id) }
  },
  async unsubscribe(ctx, remoteId) {
    try {
      await ctx.api.delete(`/api/v2/webhooks/${encodeURIComponent(remoteId)}`)
    } catch (err) {
      if (!isNotFound(err)) throw err
    }
  },
  async exists(ctx, remoteId) {
    try {
      await ctx.api.get(`/api/v2/webhooks/${encodeURIComponent(remoteId)}`)
      return true
    } catch (err) {
      if (isNotFound(err)) return false
      throw err
    }
  },
  verify,
  parse,
}
