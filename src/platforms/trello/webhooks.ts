import { createHmac } from 'node:crypto'
import { AppError, invalidInput } from '../../core/errors.ts'
import type { ToolContext } from '../../core/tools/define.ts'
import type { Delivery, EventCandidate, Verification, WebhookFacts } from '../../core/triggers/define.ts'
import { matchesSignature } from '../../core/triggers/signatures.ts'
import { actionOf, candidateOf, isAction } from './triggers/actions.ts'
import { MEMBER_MODEL } from './triggers/boards.ts'

/**
 * Trello's webhooks (docs/triggers/trello.md, "Facts"): one per (token, model, callback URL),
 * created with `POST /1/webhooks` after Trello's HEAD check of the callback, delivering
 * `{action, model}` signed with the app's secret over the raw body followed by the callback URL.
 * Switchyard makes one per integration and board and filters for each trigger itself.
 */

export const SIGNATURE_HEADER = 'x-trello-webhook'
/** Trello's answer to a second webhook with the same callback, model and token (sources: Trello actions and webhooks). */
const ALREADY_EXISTS = /already exists/i

interface RemoteWebhook {
  id: string
  idModel: string
  callbackURL: string
}

const isNotFound = (err: unknown) => err instanceof AppError && err.code === 'not_found'

/** The model id to watch: a board id as given, or the connected member for `me`. */
async function modelId(ctx: ToolContext, modelKey: string): Promise<string> {
  if (modelKey !== MEMBER_MODEL) return modelKey
  const me: { id: string } = await ctx.api.get('/1/members/me', { fields: 'id' })
  return me.id
}

/**
 * The token's own webhooks. `GET /1/tokens/{token}/webhooks` needs the token's value, which an OAuth
 * client never puts in a path (it signs the request instead); `/1/members/me/tokens?webhooks=true`
 * lists the member's tokens with their webhooks and needs no token in the path. A callback URL is
 * Switchyard's own address for one integration and model, so a match on it and the model is ours.
 */
async function findOwn(
  ctx: ToolContext,
  idModel: string,
  callbackUrl: string,
): Promise<RemoteWebhook | undefined> {
  const tokens: Array<{ webhooks?: RemoteWebhook[] }> = await ctx.api.get('/1/members/me/tokens', {
    webhooks: 'true',
  })
  return tokens
    .flatMap((t) => t.webhooks ?? [])
    .find((w) => w.idModel === idModel && w.callbackURL === callbackUrl)
}

export function signature(appSecret: string, rawBody: Buffer, callbackUrl: string): Buffer {
  return createHmac('sha1', appSecret).update(rawBody).update(Buffer.from(callbackUrl, 'utf8')).digest()
}

/** Checks `X-Trello-Webhook` over the raw bytes and the callback URL as stored; never throws. */
async function verify(
  delivery: Delivery,
  secrets: { hookSecret?: string; appSecret?: string },
): Promise<Verification> {
  // Trello signs with the app's secret; a webhook has no secret of its own.
  if (!secrets.appSecret) return 'unverifiable'
  return matchesSignature(
    delivery.headers[SIGNATURE_HEADER],
    signature(secrets.appSecret, delivery.rawBody, delivery.callbackUrl),
    'base64',
  )
}

/** `{action, model}` → one candidate, keyed by the action id (a redelivery is a duplicate). */
function parse(delivery: Delivery): EventCandidate[] {
  let body: unknown
  try {
    body = JSON.parse(delivery.rawBody.toString('utf8'))
  } catch {
    throw invalidInput([
      { field: 'body', message: 'is not JSON; Trello sends {"action": ..., "model": ...}' },
    ])
  }
  const action = typeof body === 'object' && body !== null ? (body as { action?: unknown }).action : undefined
  if (!isAction(action))
    throw invalidInput([
      {
        field: 'action',
        message: 'is missing or is not a Trello action (id, type, date, idMemberCreator, data)',
      },
    ])
  const model = (body as { model?: unknown }).model ?? null
  return [
    { dedupeKey: action.id, type: action.type, raw: { action, model }, actorId: action.idMemberCreator },
  ]
}

/**
 * Reads the action back and answers it as Trello gave it: the delivery is unsigned (a connection by
 * pasted key and token has no app secret to check with), so nothing in it but the action id is
 * believed. A real id with forged `data` therefore starts its runs with the real content (issue 22,
 * §6). The type and author must still agree, so a delivery that lies about them is refused outright.
 */
async function confirm(ctx: ToolContext, candidate: EventCandidate): Promise<EventCandidate | null> {
  const claimed = actionOf(candidate)
  if (!claimed) return null
  let real: unknown
  try {
    real = await ctx.api.get(`/1/actions/${encodeURIComponent(claimed.id)}`, {
      fields: 'type,idMemberCreator,data,date',
      memberCreator: 'true',
    })
  } catch (err) {
    if (isNotFound(err) || (err instanceof AppError && err.code === 'invalid_input')) return null
    throw err
  }
  const action = { ...(real as object), id: claimed.id }
  if (!isAction(action)) return null
  if (action.type !== claimed.type || action.idMemberCreator !== claimed.idMemberCreator) return null
  return candidateOf(action)
}

export const trelloWebhooks: WebhookFacts = {
  managed: true,
  // "The webhook will retry 3 times before stopping" (platform-apis.md, Trello webhooks, "Retries");
  // the spacing of those retries is not documented. A day covers three retries at any backoff the
  // real service plausibly uses (its failure counters are kept in days: `firstConsecutiveFailDate`).
  retryWindowMs: 24 * 60 * 60 * 1000,
  async subscribe(ctx, hook) {
    const idModel = await modelId(ctx, hook.modelKey)
    try {
      const created: RemoteWebhook = await ctx.api.post('/1/webhooks', {
        callbackURL: hook.callbackUrl,
        idModel,
        description: hook.description,
      })
      return { remoteId: created.id }
    } catch (err) {
      if (!(err instanceof AppError && err.extras.upstreamStatus === 400 && ALREADY_EXISTS.test(err.message)))
        throw err
      const existing = await findOwn(ctx, idModel, hook.callbackUrl)
      if (!existing)
        throw new AppError(
          'conflict',
          "Trello says a webhook for this board and address already exists, but it is not among this connection's webhooks",
          { cause: err },
        )
      return { remoteId: existing.id }
    }
  },
  async unsubscribe(ctx, remoteId) {
    try {
      await ctx.api.delete(`/1/webhooks/${encodeURIComponent(remoteId)}`)
    } catch (err) {
      if (!isNotFound(err)) throw err
    }
  },
  async exists(ctx, remoteId) {
    try {
      await ctx.api.get(`/1/webhooks/${encodeURIComponent(remoteId)}`)
      return true
    } catch (err) {
      if (isNotFound(err)) return false
      throw err
    }
  },
  verify,
  confirm,
  parse,
}
