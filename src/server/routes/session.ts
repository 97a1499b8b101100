import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { SESSION_TTL_MS } from '../../core/access/sessions.ts'
import { AppError } from '../../core/errors.ts'
import { parseOrThrow } from '../../core/validation.ts'
import type { Services } from '../../services.ts'
import { callerOf, SESSION_COOKIE } from '../auth.ts'

const Login = z.object({ api_key: z.string().min(1).max(200) })

export function sessionRoutes(app: FastifyInstance, services: Services) {
  const secure = services.config.publicUrl.startsWith('https:')

  app.post('/v1/session', async (request, reply) => {
    const { api_key } = parseOrThrow(Login, request.body)
    const caller = await services.users.authenticateKey(api_key)
    if (!caller) throw new AppError('unauthenticated', 'that API key is not valid')
    const session = await services.sessions.create(caller.user.id)
    reply.setCookie(SESSION_COOKIE, session.id, {
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: '/',
      maxAge: SESSION_TTL_MS / 1000,
    })
    return reply.status(204).send()
  })

  app.delete('/v1/session', async (request, reply) => {
    const sessionId = request.cookies[SESSION_COOKIE]
    if (sessionId) await services.sessions.destroy(sessionId)
    reply.clearCookie(SESSION_COOKIE, { path: '/' })
    return reply.status(204).send()
  })

  app.get('/v1/me', async (request) => {
    const { id, email, name, plan, role } = callerOf(request)
    return { id, email, name, plan, role }
  })
}
