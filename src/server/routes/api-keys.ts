import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { notFound } from '../../core/errors.ts'
import { parseOrThrow } from '../../core/validation.ts'
import type { Services } from '../../services.ts'
import { callerOf } from '../auth.ts'

const NewKey = z.object({ name: z.string().trim().min(1).max(100).default('default') })

export function apiKeyRoutes(app: FastifyInstance, services: Services) {
  app.get('/v1/api-keys', async (request) => {
    const keys = await services.users.listApiKeys(callerOf(request).id)
    return {
      api_keys: keys.map((k) => ({
        ...k,
        created_at: new Date(k.created_at).toISOString(),
        last_used_at: k.last_used_at && new Date(k.last_used_at).toISOString(),
      })),
    }
  })

  app.post('/v1/api-keys', async (request, reply) => {
    const { name } = parseOrThrow(NewKey, request.body ?? {})
    const created = await services.users.createApiKey(callerOf(request).id, name)
    return reply.status(201).header('cache-control', 'no-store').send(created)
  })

  app.delete<{ Params: { id: string } }>('/v1/api-keys/:id', async (request, reply) => {
    if (!(await services.users.deleteApiKey(callerOf(request).id, request.params.id)))
      throw notFound('API key')
    return reply.status(204).send()
  })
}
