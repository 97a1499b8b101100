import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { connectionUsage } from '../../core/models/connection-usage.ts'
import { extendRun } from '../../core/models/extend.ts'
import { parseOrThrow } from '../../core/validation.ts'
import type { Services } from '../../services.ts'
import { callerOf } from '../auth.ts'

type ById = { Params: { id: string } }

const ApprovalQuery = z.object({
  status: z
    .enum(['pending', 'decided', 'expired', 'cancelled', 'all'], {
      error: 'choose pending, decided, expired, cancelled or all',
    })
    .default('pending'),
})

/** Model connections, approvals and extending a model run (docs/model-agents.md). */
export function modelRoutes(app: FastifyInstance, services: Services) {
  const { modelConnections, approvals } = services

  app.get('/v1/model-connections', async (request) => ({
    model_connections: await modelConnections.list(callerOf(request).id),
  }))

  // The key is taken here and never answered again.
  app.post('/v1/model-connections', async (request, reply) =>
    reply.status(201).send(await modelConnections.create(callerOf(request), request.body)),
  )

  // A new key, base URL or name in place: the key is taken here and never answered again.
  app.patch<ById>('/v1/model-connections/:id', async (request) =>
    modelConnections.update(callerOf(request), request.params.id, request.body),
  )

  // Asked before a removal, so the confirmation can name the model agents that stop working.
  app.get<ById>('/v1/model-connections/:id/usage', async (request) =>
    connectionUsage(services.store.db, callerOf(request), request.params.id),
  )

  app.delete<ById>('/v1/model-connections/:id', async (request, reply) => {
    await modelConnections.remove(callerOf(request), request.params.id)
    return reply.status(204).send()
  })

  app.get('/v1/approvals', async (request) => {
    const { status } = parseOrThrow(ApprovalQuery, request.query)
    return { approvals: await approvals.list(callerOf(request).id, status) }
  })

  app.get<ById>('/v1/approvals/:id', async (request) =>
    approvals.get(callerOf(request).id, request.params.id),
  )

  app.post<ById>('/v1/approvals/:id/decide', async (request) =>
    approvals.decide(callerOf(request), request.params.id, request.body),
  )

  app.post<ById>('/v1/runs/:id/extend', async (request) => {
    const user = callerOf(request)
    await extendRun(
      services.store.db,
      user,
      request.params.id,
      request.body,
      (id, v) => services.agents.definitionAt(id, v),
      services.planCeilings,
    )
    services.runs.onReady()
    return services.runs.get(user.id, request.params.id)
  })
}
