import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { RunStartedBy } from '../../core/store/schema.ts'
import { parseOrThrow } from '../../core/validation.ts'
import type { Services } from '../../services.ts'
import { callerOf } from '../auth.ts'

type ById = { Params: { id: string } }

const VersionQuery = z.object({
  version: z.coerce
    .number({ error: 'give a version number' })
    .int('give a whole number')
    .min(1, 'versions start at 1')
    .optional(),
})

/** A person in the web app (session) starts runs by hand; anything with an API key is an API call. */
export function startedByOf(request: FastifyRequest): RunStartedBy {
  return request.agentId?.startsWith('user:') ? 'person' : 'api'
}

export function agentRoutes(app: FastifyInstance, services: Services) {
  const { agents } = services

  // Paged like runs (docs/api.md, "Lists are paged"): `limit`, `cursor` and a search `q`.
  app.get('/v1/agents', async (request) => agents.page(callerOf(request).id, request.query))

  // The signing secret of an external agent is in this answer and the rotate answer only.
  app.post('/v1/agents', async (request, reply) => {
    const { agent, signingSecret } = await agents.create(callerOf(request), request.body)
    return reply.status(201).send({ ...agent, ...(signingSecret ? { signing_secret: signingSecret } : {}) })
  })

  app.get<ById>('/v1/agents/:id', async (request) => {
    const { version } = parseOrThrow(VersionQuery, request.query)
    return agents.get(callerOf(request).id, request.params.id, version)
  })

  app.get<ById>('/v1/agents/:id/versions', async (request) => ({
    versions: await agents.versions(callerOf(request).id, request.params.id),
  }))

  app.put<ById>('/v1/agents/:id', async (request) => {
    const { agent, signingSecret } = await agents.update(callerOf(request), request.params.id, request.body)
    return { ...agent, ...(signingSecret ? { signing_secret: signingSecret } : {}) }
  })

  app.post<ById>('/v1/agents/:id/signing-secret', async (request) => ({
    signing_secret: await agents.rotateSecret(callerOf(request).id, request.params.id),
  }))

  // Its triggers go first, so no webhook at a platform is left pointing at an agent that is gone.
  app.delete<ById>('/v1/agents/:id', async (request, reply) => {
    const user = callerOf(request)
    await agents.get(user.id, request.params.id)
    const manualCleanup = await services.subscriptions.deleteForAgent(user, request.params.id)
    await agents.delete(user.id, request.params.id)
    // A webhook the user added at a platform by hand is theirs to remove: say which, and where.
    if (manualCleanup.length) return reply.status(200).send({ manual_cleanup: manualCleanup })
    return reply.status(204).send()
  })

  app.post<ById & { Body: { inputs?: unknown } }>('/v1/agents/:id/runs', async (request, reply) => {
    const body = (request.body && typeof request.body === 'object' ? request.body : {}) as {
      inputs?: unknown
    }
    return reply
      .status(201)
      .send(
        await services.runs.start(callerOf(request), request.params.id, body.inputs, startedByOf(request)),
      )
  })
}
