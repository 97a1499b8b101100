import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { viewOf, type IntegrationRow } from '../../core/connections/integrations.ts'
import { AppError } from '../../core/errors.ts'
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

  // Each integration says how many triggers its disconnection paused: reconnecting offers to resume them.
  const withPaused = async (userId: string, rows: IntegrationRow[]) => {
    const paused = await services.lifecycle.pausedCounts(
      userId,
      rows.map((r) => r.id),
    )
    return rows.map((row) => ({ ...viewOf(row), paused_triggers: paused.get(row.id) ?? 0 }))
  }

  // Paged like runs (docs/api.md, "Lists are paged"): `limit`, `cursor` and a search `q`.
  app.get('/v1/integrations', async (request) => {
    const user = callerOf(request)
    const { integrations: rows, next_cursor } = await integrations.page(user.id, request.query)
    return { integrations: await withPaused(user.id, rows), next_cursor }
  })

  app.get<ById>('/v1/integrations/:id', async (request) => {
    const user = callerOf(request)
    return (await withPaused(user.id, [await integrations.get(user.id, request.params.id)]))[0]
  })

  // What stops if it goes: the confirmation of Disconnect and Delete says it before a person decides.
  app.get<ById>('/v1/integrations/:id/usage', async (request) => {
    const user = callerOf(request)
    return services.lifecycle.usage(user.id, await integrations.get(user.id, request.params.id))
  })

  // After reconnecting the same account: the triggers its disconnection paused are activated again.
  app.post<ById>('/v1/integrations/:id/resume', async (request) => {
    const user = callerOf(request)
    const existing = await integrations.get(user.id, request.params.id)
    if (existing.status !== 'active')
      throw new AppError(
        'reconnect_required',
        `${existing.account_name} is not connected; reconnect it before resuming its triggers`,
        { integrationId: existing.id },
      )
    return services.lifecycle.resume(user, existing.id)
  })

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
    return (
      await withPaused(user.id, [
        await services.connect.connectPasted(
          user,
          existing.platform,
          existing.fields,
          credentials,
          existing.id,
        ),
      ])
    )[0]
  })

  app.post<ById>('/v1/integrations/:id/disconnect', async (request) => {
    const user = callerOf(request)
    const existing = await integrations.get(user.id, request.params.id)
    // Its triggers are paused and their webhooks removed while the credential still works; then it is revoked.
    await services.lifecycle.integrationGoing(user.id, existing.id)
    await services.disconnect.revoke(existing)
    return (await withPaused(user.id, [await integrations.disconnect(user.id, existing.id)]))[0]
  })

  app.delete<ById>('/v1/integrations/:id', async (request, reply) => {
    const user = callerOf(request)
    const existing = await integrations.get(user.id, request.params.id)
    await services.lifecycle.integrationGoing(user.id, existing.id)
    await services.disconnect.revoke(existing)
    await integrations.delete(user.id, existing.id)
    return reply.status(204).send()
  })
}
