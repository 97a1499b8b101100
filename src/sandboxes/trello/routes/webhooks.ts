import type { ApiContext } from '../context.ts'
import {
  fail,
  invalidId,
  invalidToken,
  invalidValue,
  modelNotFound,
  unauthorizedPermission,
  unauthorizedToken,
} from '../errors.ts'
import { jsonResponse, textResponse, type SandboxResponse } from '../http.ts'
import { OBJECT_ID } from '../ids.ts'
import { canSee, sharesBoard } from '../lookup.ts'
import type { Token, Webhook, WebhookModelType } from '../model.ts'
import { webhookJson } from '../presenters.ts'
import type { ApiRoute } from '../router.ts'
import { checkCallback } from '../webhooks/callback-check.ts'
import { validUrl } from './card-args.ts'
import { text } from './shared.ts'

/**
 * Webhooks (sources: Trello actions and webhooks): they belong to the token that made them; a read token is enough (Trello
 * only needs read access to the model). Creating one, or pointing it at a new callbackURL,
 * first sends `HEAD callbackURL` and needs a 200.
 */

function requireToken(ctx: ApiContext): Token {
  return ctx.actor.token ?? fail(invalidToken())
}

/** `/1/tokens/{token}/...` works only for the calling token [CAP api-docs#156]. */
function pathToken(ctx: ApiContext): Token {
  const token = requireToken(ctx)
  if (ctx.path.token !== token.value) return fail(unauthorizedToken())
  return token
}

/** The watchable model behind an id, if the token's member can see it. */
function resolveModel(
  ctx: ApiContext,
  idModel: string | undefined,
): { idModel: string; type: WebhookModelType } {
  if (!idModel || !OBJECT_ID.test(idModel)) return fail(invalidValue('idModel'))
  const { store } = ctx
  const board = store.boards.get(idModel)
  if (board && canSee(ctx, board)) return { idModel, type: 'board' }
  const card = store.cards.get(idModel)
  const cardBoard = card && store.boards.get(card.idBoard)
  if (cardBoard && canSee(ctx, cardBoard)) return { idModel, type: 'card' }
  const list = store.lists.get(idModel)
  const listBoard = list && store.boards.get(list.idBoard)
  if (listBoard && canSee(ctx, listBoard)) return { idModel, type: 'list' }
  const member = store.members.get(idModel)
  if (member && sharesBoard(ctx, member)) return { idModel, type: 'member' }
  return fail(invalidValue('idModel'))
}

function callbackArg(ctx: ApiContext): string {
  const url = ctx.params.string('callbackURL')
  if (!validUrl(url)) return fail(invalidValue('callbackURL'))
  return url
}

/** Duplicate webhooks are refused (wording from memory of the live API) [UNV]. */
const duplicate = () => textResponse(400, 'A webhook with that callback, model, and token already exists')

async function createWebhook(ctx: ApiContext): Promise<SandboxResponse> {
  const token = ctx.path.token !== undefined ? pathToken(ctx) : requireToken(ctx)
  const callbackURL = callbackArg(ctx)
  const { idModel, type } = resolveModel(ctx, ctx.params.string('idModel'))
  const description = text(ctx, 'description', { allowEmpty: true }) ?? ''
  const active = ctx.params.bool('active') ?? true
  const { store } = ctx
  if (store.webhooksOfToken(token.value).some((w) => w.callbackURL === callbackURL && w.idModel === idModel))
    return duplicate()
  const check = await checkCallback(callbackURL, ctx.sb.callbackCheckTimeoutMs)
  if (!check.ok) return textResponse(400, check.message)
  const webhook: Webhook = {
    id: ctx.sb.newId(),
    token: token.value,
    key: token.key,
    idModel,
    modelType: type,
    callbackURL,
    description,
    active,
    consecutiveFailures: 0,
    firstConsecutiveFailDate: null,
    createdAt: ctx.sb.now(),
  }
  store.webhooks.set(webhook.id, webhook)
  return jsonResponse(200, webhookJson(webhook))
}

/** A webhook of the calling token; another token's webhook is refused [UNV wording]. */
function ownWebhook(ctx: ApiContext, id: string): Webhook {
  const token = requireToken(ctx)
  if (!OBJECT_ID.test(id)) return fail(invalidId())
  const webhook = ctx.store.webhooks.get(id)
  if (!webhook) return fail(modelNotFound())
  if (webhook.token !== token.value) return fail(unauthorizedPermission())
  return webhook
}

async function updateWebhook(ctx: ApiContext): Promise<SandboxResponse> {
  const webhook = ownWebhook(ctx, ctx.path.id as string)
  const callbackURL = ctx.params.has('callbackURL') ? callbackArg(ctx) : undefined
  const model = ctx.params.has('idModel') ? resolveModel(ctx, ctx.params.string('idModel')) : undefined
  const description = text(ctx, 'description', { allowEmpty: true })
  const active = ctx.params.bool('active')
  if (callbackURL !== undefined && callbackURL !== webhook.callbackURL) {
    const check = await checkCallback(callbackURL, ctx.sb.callbackCheckTimeoutMs)
    if (!check.ok) return textResponse(400, check.message)
    webhook.callbackURL = callbackURL
  }
  if (model) [webhook.idModel, webhook.modelType] = [model.idModel, model.type]
  if (description !== undefined) webhook.description = description
  if (active !== undefined) webhook.active = active
  return jsonResponse(200, webhookJson(webhook))
}

/** Deleting answers `{"_value":null}` [UNV, from memory of the live API]. */
function deleteWebhook(ctx: ApiContext, id: string): SandboxResponse {
  const webhook = ownWebhook(ctx, id)
  ctx.store.webhooks.delete(webhook.id)
  return jsonResponse(200, { _value: null })
}

export const webhookRoutes: ApiRoute[] = [
  { method: 'POST', path: '/1/webhooks', scope: 'read', handle: createWebhook },
  {
    method: 'GET',
    path: '/1/webhooks/{id}',
    scope: 'read',
    handle: (ctx) => jsonResponse(200, webhookJson(ownWebhook(ctx, ctx.path.id as string))),
  },
  { method: 'PUT', path: '/1/webhooks/{id}', scope: 'read', handle: updateWebhook },
  {
    method: 'DELETE',
    path: '/1/webhooks/{id}',
    scope: 'read',
    handle: (ctx) => deleteWebhook(ctx, ctx.path.id as string),
  },
  {
    method: 'GET',
    path: '/1/tokens/{token}/webhooks',
    scope: 'read',
    handle: (ctx) => jsonResponse(200, ctx.store.webhooksOfToken(pathToken(ctx).value).map(webhookJson)),
  },
  { method: 'POST', path: '/1/tokens/{token}/webhooks', scope: 'read', handle: createWebhook },
  {
    method: 'GET',
    path: '/1/tokens/{token}/webhooks/{id}',
    scope: 'read',
    handle: (ctx) => (pathToken(ctx), jsonResponse(200, webhookJson(ownWebhook(ctx, ctx.path.id as string)))),
  },
  {
    method: 'DELETE',
    path: '/1/tokens/{token}/webhooks/{id}',
    scope: 'read',
    handle: (ctx) => (pathToken(ctx), deleteWebhook(ctx, ctx.path.id as string)),
  },
]
