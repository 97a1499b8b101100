import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { User } from '../../core/access/users.ts'
import { AppError } from '../../core/errors.ts'
import type { Services } from '../../services.ts'
import { callerOf } from '../auth.ts'

type ById = { Params: { id: string } }

/** Managing users is for admins only (docs/security.md). */
function adminOf(request: FastifyRequest): User {
  const caller = callerOf(request)
  if (caller.role !== 'admin') throw new AppError('forbidden', 'only an admin can manage users')
  return caller
}

export function userRoutes(app: FastifyInstance, services: Services) {
  const { admin } = services

  app.get('/v1/users', async (request) => {
    adminOf(request)
    return { users: await admin.list() }
  })

  app.get<ById>('/v1/users/:id', async (request) => {
    adminOf(request)
    return admin.get(request.params.id)
  })

  // Answers the new user's first API key and their invitation link, once: the admin hands them over
  // (the link is also mailed when SMTP is configured).
  app.post('/v1/users', async (request, reply) => {
    const caller = adminOf(request)
    const created = await admin.create(request.body ?? {})
    const invitation = await services.passwordLinks.issue(created.user, caller.id)
    return reply
      .status(201)
      .header('cache-control', 'no-store')
      .send({ ...created, invitation })
  })

  // A new one-time link: an invitation while the user has no password, a reset once they have one.
  // Earlier unused links of the user stop working.
  app.post<ById>('/v1/users/:id/password-link', async (request, reply) => {
    const caller = adminOf(request)
    const user = await admin.get(request.params.id)
    const link = await services.passwordLinks.issue(user, caller.id)
    return reply.status(201).header('cache-control', 'no-store').send(link)
  })

  app.patch<ById>('/v1/users/:id', async (request) => {
    adminOf(request)
    return admin.change(request.params.id, request.body ?? {})
  })

  app.delete<ById>('/v1/users/:id', async (request) => {
    adminOf(request)
    return admin.remove(request.params.id)
  })
}
