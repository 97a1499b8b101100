import type { FastifyInstance } from 'fastify'
import { planAtLeast } from '../../core/access/plans.ts'
import type { User } from '../../core/access/users.ts'
import { invalidInput, notFound } from '../../core/errors.ts'
import type { TriggerEntry } from '../../core/triggers/catalog.ts'
import { KEPT_PER_SOURCE } from '../../core/triggers/delivery-log.ts'
import type { Services } from '../../services.ts'
import { callerOf } from '../auth.ts'

type ById = { Params: { id: string } }

/**
 * The catalogue as the caller may use it: a trigger their plan does not allow says so up front, so a
 * person learns it when choosing, not after filling a whole form (docs/triggers.md, "Plans").
 */
function forCaller(entry: TriggerEntry, user: User): TriggerEntry & { availableOnYourPlan: boolean } {
  return { ...entry, availableOnYourPlan: !entry.requiredPlan || planAtLeast(user.plan, entry.requiredPlan) }
}

function eventsLimit(raw: unknown): number | undefined {
  if (raw === undefined) return undefined
  const n = typeof raw === 'string' && /^\d{1,3}$/.test(raw) ? Number(raw) : NaN
  if (!(n >= 1 && n <= KEPT_PER_SOURCE))
    throw invalidInput([{ field: 'limit', message: `give a whole number from 1 to ${KEPT_PER_SOURCE}` }])
  return n
}

export function triggerRoutes(app: FastifyInstance, services: Services) {
  const { triggers, subscriptions } = services

  app.get<{ Querystring: { q?: string } }>('/v1/triggers', async (request) => {
    const user = callerOf(request)
    const found = typeof request.query.q === 'string' ? triggers.search(request.query.q) : triggers.list()
    return { triggers: found.map((entry) => forCaller(entry, user)) }
  })

  app.get<ById>('/v1/triggers/:id', async (request) => {
    const registered = triggers.get(request.params.id)
    if (!registered) throw notFound(`trigger ${request.params.id}`)
    return forCaller(registered.entry, callerOf(request))
  })

  // The choices for a configuration's id field (boards, lists…), as for tool step inputs.
  app.get<ById & { Params: { field: string }; Querystring: Record<string, unknown> }>(
    '/v1/triggers/:id/options/:field',
    async (request) => {
      const registered = triggers.get(request.params.id)
      if (!registered) throw notFound(`trigger ${request.params.id}`)
      const { integration, q, cursor, ...values } = request.query
      const owner = {
        platform: registered.platform,
        title: registered.trigger.title,
        sources: registered.trigger.configOptions,
      }
      return services.options.listFrom(
        callerOf(request),
        owner,
        request.params.field,
        { integration, q, cursor, values },
        request.agentId ?? undefined,
      )
    },
  )

  // The Triggers tab: paged as GET /v1/subscriptions?agent_id= is, with the same cursors.
  app.get<ById>('/v1/agents/:id/subscriptions', async (request) => {
    const user = callerOf(request)
    await services.agents.get(user.id, request.params.id)
    return subscriptions.page(user.id, request.query, request.params.id)
  })

  // Paged like runs (docs/rest-api.md, "Lists are paged"): `limit`, `cursor` and a search `q`.
  app.get<{ Querystring: { agent_id?: string } }>('/v1/subscriptions', async (request) => {
    const agentId = typeof request.query.agent_id === 'string' ? request.query.agent_id : undefined
    return {
      ...(await subscriptions.page(callerOf(request).id, request.query, agentId)),
      // After a plan upgrade: the triggers a lowered plan paused that the plan includes again, offered
      // for resume (docs/triggers.md, "When an integration, a plan or a user goes").
      plan_resumable: await services.lifecycle.planResumable(callerOf(request), agentId),
    }
  })

  app.post('/v1/subscriptions/resume', async (request) => services.lifecycle.resumePlan(callerOf(request)))

  app.post<ById>('/v1/agents/:id/subscriptions', async (request, reply) =>
    reply.status(201).send(await subscriptions.create(callerOf(request), request.params.id, request.body)),
  )

  app.get<ById>('/v1/subscriptions/:id', async (request) =>
    subscriptions.get(callerOf(request).id, request.params.id),
  )

  app.patch<ById>('/v1/subscriptions/:id', async (request) =>
    subscriptions.update(callerOf(request), request.params.id, request.body),
  )

  app.delete<ById>('/v1/subscriptions/:id', async (request, reply) => {
    const manualCleanup = await subscriptions.delete(callerOf(request), request.params.id)
    // A webhook the user added at the platform by hand is theirs to remove: say which, and where.
    if (manualCleanup.length) return reply.status(200).send({ manual_cleanup: manualCleanup })
    return reply.status(204).send()
  })

  app.post<ById>('/v1/subscriptions/:id/activate', async (request) =>
    subscriptions.activate(callerOf(request), request.params.id),
  )
  app.post<ById>('/v1/subscriptions/:id/deactivate', async (request) =>
    subscriptions.deactivate(callerOf(request), request.params.id),
  )
  app.post<ById>('/v1/subscriptions/:id/preview', async (request) =>
    subscriptions.preview(callerOf(request), request.params.id, request.body),
  )
  app.post<ById>('/v1/subscriptions/:id/test', async (request) =>
    subscriptions.test(callerOf(request), request.params.id, request.body),
  )
  // Platforms without a test button (Vercel): a signed sample through the subscription's own address.
  app.post<ById>('/v1/subscriptions/:id/send-sample', async (request) =>
    services.samples.send(callerOf(request).id, request.params.id),
  )
  app.get<ById>('/v1/subscriptions/:id/health', async (request) =>
    subscriptions.health(callerOf(request), request.params.id),
  )
  app.post<ById>('/v1/subscriptions/:id/poll', async (request) =>
    subscriptions.pollNow(callerOf(request), request.params.id),
  )
  // Each recent delivery with what became of it (docs/triggers.md, "When a trigger does not fire").
  app.get<ById & { Querystring: { limit?: unknown } }>('/v1/subscriptions/:id/events', async (request) => ({
    events: await subscriptions.recentEvents(
      callerOf(request),
      request.params.id,
      eventsLimit(request.query.limit),
    ),
  }))
  app.get<ById & { Querystring: { limit?: unknown } }>('/v1/webhooks/:id/events', async (request) => ({
    events: await services.triggerEvents.ofWebhook(
      callerOf(request).id,
      request.params.id,
      eventsLimit(request.query.limit),
    ),
  }))
}
