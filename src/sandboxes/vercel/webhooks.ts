import { randomBase64Url } from '../kit/ids.ts'
import { emptyResponse, jsonResponse } from './http.ts'
import { notFound } from './errors.ts'
import { webhookId } from './ids.ts'
import { WEBHOOK_EVENTS, type Webhook } from './model.ts'
import { webhookJson } from './presenters.ts'
import type { ApiContext, ApiRoute } from './router.ts'
import type { Store } from './store.ts'
import { bodyObject, guarded, invalid, reqString } from './validate.ts'

export const newWebhookSecret = (): string => randomBase64Url(24)

/** Validates and stores a webhook; throws `Invalid` (400) naming the field. */
export function createWebhook(
  store: Store,
  ownerId: string,
  input: Record<string, unknown>,
  now: number,
): Webhook {
  const url = reqString(input, 'url')
  if (!/^https?:\/\//.test(url)) invalid('`url` should match pattern "^https?://"')
  try {
    new URL(url)
  } catch {
    invalid('`url` should be a valid URL')
  }
  const events = input.events
  if (!Array.isArray(events) || events.length === 0) invalid('`events` should be a non-empty array')
  for (const e of events)
    if (!(WEBHOOK_EVENTS as readonly unknown[]).includes(e))
      invalid(`\`events\` should be one of ${WEBHOOK_EVENTS.join(', ')}`)
  const projectIds = input.projectIds ?? []
  if (!Array.isArray(projectIds) || !projectIds.every((p) => typeof p === 'string'))
    invalid('`projectIds` should be an array of strings')
  for (const id of projectIds as string[]) {
    const project = store.projects.get(id)
    if (!project || project.ownerId !== ownerId) invalid(`\`projectIds\` contains an unknown project: ${id}`)
  }
  const webhook: Webhook = {
    id: webhookId(),
    ownerId,
    url,
    events: [...new Set(events as string[])],
    projectIds: [...new Set(projectIds as string[])],
    secret: newWebhookSecret(),
    createdAt: now,
    updatedAt: now,
  }
  store.webhooks.set(webhook.id, webhook)
  return webhook
}

/** `POST /v1/webhooks` → 200 with the `secret`, the only time it is returned (sources: Vercel webhooks). */
const create = guarded((ctx: ApiContext) =>
  jsonResponse(200, webhookJson(createWebhook(ctx.store, ctx.ownerId, bodyObject(ctx.body), ctx.now), true)),
)

/** `GET /v1/webhooks` is a bare array (V-OAS). `?projectId=` filters. */
const list = (ctx: ApiContext) => {
  const projectId = ctx.req.query.get('projectId')
  const hooks = [...ctx.store.webhooks.values()].filter(
    (w) => w.ownerId === ctx.ownerId && (!projectId || w.projectIds.includes(projectId)),
  )
  return jsonResponse(
    200,
    hooks.map((w) => webhookJson(w, false)),
  )
}

function find(ctx: ApiContext): Webhook | undefined {
  const hook = ctx.store.webhooks.get(ctx.params.id as string)
  return hook && hook.ownerId === ctx.ownerId ? hook : undefined
}

const show = (ctx: ApiContext) => {
  const hook = find(ctx)
  return hook ? jsonResponse(200, webhookJson(hook, false)) : notFound('Webhook not found')
}

const remove = (ctx: ApiContext) => {
  const hook = find(ctx)
  if (!hook) return notFound('Webhook not found')
  ctx.store.webhooks.delete(hook.id)
  return emptyResponse(204)
}

export const webhookRoutes: ApiRoute[] = [
  { method: 'POST', path: '/v1/webhooks', scoped: true, handle: create },
  { method: 'GET', path: '/v1/webhooks', scoped: true, handle: list },
  { method: 'GET', path: '/v1/webhooks/{id}', scoped: true, handle: show },
  { method: 'DELETE', path: '/v1/webhooks/{id}', scoped: true, handle: remove },
]
