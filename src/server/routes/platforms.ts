import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { notFound } from '../../core/errors.ts'
import type { Services } from '../../services.ts'

export function platformRoutes(app: FastifyInstance, services: Services) {
  // Where to get pasted credentials, given what was typed so far: for Trello, the token page of a key.
  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>(
    '/v1/platforms/:id/credential-help',
    async (request) => {
      const runtime = services.runtimes.get(request.params.id)
      if (!runtime?.definition.auth.pasted)
        throw notFound(`platform ${request.params.id} with pasted credentials`)
      const values = Object.fromEntries(
        Object.entries(request.query).filter(([, v]) => typeof v === 'string'),
      )
      return { url: runtime.definition.auth.pasted.helpUrl?.(runtime.baseUrl({}), values) ?? null }
    },
  )

  app.get('/v1/platforms', async () => ({
    platforms: [...services.runtimes.values()].map(({ definition, mode, missing, sandboxHome }) => ({
      id: definition.id,
      title: definition.title,
      kind: definition.kind,
      mode,
      missing_settings: missing,
      sandbox_home: sandboxHome ?? null,
      connect_methods: definition.auth.pasted ? ['authorize', 'credentials'] : ['authorize'],
      authorize_in: definition.auth.interactive.popup ? 'popup' : 'page',
      credential_fields: (definition.auth.pasted?.fields ?? []).map((f) => ({
        name: f.name,
        label: f.label,
        help: f.help,
        secret: f.secret,
      })),
      connection_fields: definition.connectionFields.map((f) => ({
        name: f.name,
        label: f.label,
        help: f.help,
        example: f.example,
        json_schema: z.toJSONSchema(f.schema, { io: 'input', unrepresentable: 'any' }),
      })),
    })),
  }))
}
