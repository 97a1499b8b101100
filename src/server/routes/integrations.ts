import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { viewOf } from '../../core/connections/integrations.ts'
import { parseOrThrow } from '../../core/validation.ts'
import type { Services } from '../../services.ts'
import { callerOf } from '../auth.ts'

const Connect = z.object({
  platform: z.string({ error: 'name the platform to connect, for example zendesk' }),
  fields: z.record(z.string(), z.unknown()).default({}),
})

const ConnectPasted = Connect.extend({
  credentials: z.record(z.string(), z.unknown(), {
    error: 'give the credentials to connect with, for example {"key": "…", "token": "…"}',
  }),
})

const ReplaceCredentials = z.object({
  credentials: z.record(z.string(), z.unknown(), {
    error: 'give the new credentials, for example {"key": "…", "token": "…"}',
  }),
})

type ById = { Params: { id: string } }

export function integrationRoutes(app: FastifyInstance, services: Services) {
  const { integrations } = services

  app.get('/v1/integrations', async (request) => ({
    integrations: (await integrations.list(callerOf(request).id)).map(viewOf),
  }))

  app.get<ById>('/v1/integrations/:id', async (request) =>
    viewOf(await integrations.get(callerOf(request).id, request.params.id)),
  )

  app.post('/v1/integrations/connect', async (request, reply) => {
    const { platform, fields } = parseOrThrow(Connect, request.body)
    return reply.status(201).send(await services.connect.start(callerOf(request), platform, fields))
  })

  // Pasted credentials (for example a Trello API key plus token) are checked with the platform at once.
  app.post('/v1/integrations', async (request, reply) => {
    const { platform, fields, credentials } = parseOrThrow(ConnectPasted, request.body)
    return reply
      .status(201)
      .send(viewOf(await services.connect.connectPasted(callerOf(request), platform, fields, credentials)))
  })

  app.post<ById>('/v1/integrations/:id/reconnect', async (request, reply) => {
    const user = callerOf(request)
    const existing = await integrations.get(user.id, request.params.id)
    return reply
      .status(201)
      .send(await services.connect.start(user, existing.platform, existing.fields, existing.id))
  })

  // The pasted-credentials way to reconnect: new values for the same account, checked at once.
  app.put<ById>('/v1/integrations/:id/credentials', async (request) => {
    const user = callerOf(request)
    const existing = await integrations.get(user.id, request.params.id)
    const { credentials } = parseOrThrow(ReplaceCredentials, request.body)
    return viewOf(
      await services.connect.connectPasted(
        user,
        existing.platform,
        existing.fields,
        credentials,
        existing.id,
      ),
    )
  })

  app.post<ById>('/v1/integrations/:id/disconnect', async (request) => {
    const user = callerOf(request)
    const existing = await integrations.get(user.id, request.params.id)
    await services.disconnect.revoke(existing)
    return viewOf(await integrations.disconnect(user.id, existing.id))
  })

  app.delete<ById>('/v1/integrations/:id', async (request, reply) => {
    const user = callerOf(request)
    const existing = await integrations.get(user.id, request.params.id)
    await services.disconnect.revoke(existing)
    await integrations.delete(user.id, existing.id)
    return reply.status(204).send()
  })
}
