import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { WebhookScope } from '../../core/models/approval-webhooks.ts'
import { notFound } from '../../core/errors.ts'
import { parseOrThrow } from '../../core/validation.ts'
import type { Services } from '../../services.ts'
import { callerOf } from '../auth.ts'

const PriceQuery = z.object({
  version: z.coerce
    .number({ error: 'give the price version as a whole number (override_version)' })
    .int('give a whole number')
    .min(0, 'at least 0')
    .optional(),
})

/**
 * What an admin sets for model agents (docs/model-agents.md): prices over the shipped table,
 * the plans' budget ceilings, and the webhooks that tell outside systems an approval waits.
 */
export function modelAdminRoutes(app: FastifyInstance, services: Services) {
  const { priceBook, planCeilings, approvalWebhooks } = services

  app.get('/v1/model-prices', async (request) => {
    const { version } = parseOrThrow(PriceQuery, request.query)
    if (version !== undefined && version > (await priceBook.current()))
      throw notFound(`price version ${version}`)
    return priceBook.view(version)
  })

  app.patch('/v1/model-prices', async (request) => priceBook.change(callerOf(request), request.body))

  app.get('/v1/plan-ceilings', async () => ({ plans: await planCeilings.list() }))

  app.put<{ Params: { plan: string } }>('/v1/plan-ceilings/:plan', async (request) =>
    planCeilings.set(callerOf(request), request.params.plan, request.body),
  )

  for (const [path, scope] of [
    ['/v1/approval-webhook', 'mine'],
    ['/v1/admin/approval-webhook', 'installation'],
  ] as const satisfies ReadonlyArray<readonly [string, WebhookScope]>) {
    app.get(path, async (request) => approvalWebhooks.get(callerOf(request), scope))
    // The secret is in this answer only.
    app.put(path, async (request) => approvalWebhooks.set(callerOf(request), scope, request.body))
    app.delete(path, async (request, reply) => {
      await approvalWebhooks.remove(callerOf(request), scope)
      return reply.status(204).send()
    })
  }
}
