import type { FastifyInstance } from 'fastify'
import { notFound } from '../../core/errors.ts'
import type { Services } from '../../services.ts'
import { callerOf } from '../auth.ts'

type ById = { Params: { id: string } }

export function runRoutes(app: FastifyInstance, services: Services) {
  const { runs } = services

  app.get('/v1/runs', async (request) => runs.list(callerOf(request).id, request.query))

  app.get<ById>('/v1/runs/:id', async (request) => {
    // A run token reads its own run only.
    if (request.runId && request.runId !== request.params.id) throw notFound('run')
    return runs.get(callerOf(request).id, request.params.id)
  })

  app.post<ById>('/v1/runs/:id/cancel', async (request) =>
    runs.cancel(callerOf(request).id, request.params.id),
  )

  app.post<ById>('/v1/runs/:id/rerun', async (request, reply) =>
    reply.status(201).send(await runs.rerun(callerOf(request), request.params.id)),
  )

  // The external agent reports its run finished, with the run token it was delivered.
  app.post<ById>('/v1/runs/:id/complete', async (request) => {
    callerOf(request)
    if (!request.runId) throw notFound('run')
    return runs.complete(request.params.id, request.runId, request.body)
  })
}
