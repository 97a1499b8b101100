import type { FastifyInstance } from 'fastify'
import { notFound } from '../../core/errors.ts'
import type { Services } from '../../services.ts'
import { callerOf } from '../auth.ts'

type ById = { Params: { id: string } }

const TOOL_RUN_BODY_LIMIT_BYTES = 16 * 1024 * 1024

export function toolRoutes(app: FastifyInstance, services: Services) {
  app.get<{ Querystring: { q?: string } }>('/v1/tools', async (request) => ({
    tools:
      typeof request.query.q === 'string'
        ? services.registry.search(request.query.q)
        : services.registry.list(),
  }))

  app.get<ById>('/v1/tools/:id', async (request) => {
    const tool = services.registry.get(request.params.id)
    if (!tool) throw notFound(`tool ${request.params.id}`)
    return tool.entry
  })

  // The choices for an id field (docs/tool-options.md); every other query parameter is a dependency's value.
  app.get<ById & { Params: { field: string }; Querystring: Record<string, unknown> }>(
    '/v1/tools/:id/options/:field',
    async (request) => {
      const { integration, q, cursor, ...values } = request.query
      return services.options.list(
        callerOf(request),
        request.params.id,
        request.params.field,
        { integration, q, cursor, values },
        request.agentId ?? undefined,
      )
    },
  )

  // A run's input may carry files, base64-encoded (Zendesk Create Ticket takes up to 10 MB of them).
  app.post<ById & { Body: { integration?: unknown; input?: unknown } }>(
    '/v1/tools/:id/run',
    { bodyLimit: TOOL_RUN_BODY_LIMIT_BYTES },
    async (request) => {
      const body = (request.body && typeof request.body === 'object' ? request.body : {}) as {
        integration?: unknown
        input?: unknown
      }
      // `summary` sits beside `output` so clients that only read `output` are unaffected.
      const run = () =>
        services.executor.runAndSummarize(
          callerOf(request),
          request.params.id,
          body.integration,
          body.input,
          request.agentId ?? undefined,
        )
      // An external agent's call with its run token goes on its run's timeline.
      return request.runId
        ? services.toolCalls.record(
            request.runId,
            callerOf(request).id,
            request.params.id,
            body.integration,
            body.input,
            run,
          )
        : run()
    },
  )
}
