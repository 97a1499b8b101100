import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { User } from '../core/access/users.ts'
import { AppError } from '../core/errors.ts'
import type { Services } from '../services.ts'

export const SESSION_COOKIE = 'sy_session'
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

declare module 'fastify' {
  interface FastifyRequest {
    user: User | null
    /** Who is calling, for fairness between agents sharing a budget: the API key, or the session. */
    agentId: string | null
  }
}

/** The authenticated caller; routes under /v1 only run once this has succeeded. */
export function callerOf(request: FastifyRequest): User {
  if (!request.user) throw new AppError('unauthenticated', 'send an API key as "Authorization: Bearer sy_…" or sign in')
  return request.user
}

/**
 * Every /v1 route needs an API key (Bearer) or a web session. Requests riding on the session cookie
 * that change state must come from our own origin: that, plus SameSite=Lax, stops cross-site forgery.
 */
export function registerCallerAuth(app: FastifyInstance, services: Services, options: { publicRoutes: string[] }) {
  const ownOrigin = new URL(services.config.publicUrl).origin
  app.decorateRequest('user', null)
  app.decorateRequest('agentId', null)
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]
    if (!path.startsWith('/v1/') || options.publicRoutes.includes(`${request.method} ${path}`)) return
    const authorization = request.headers.authorization
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization)
      const caller = match ? await services.users.authenticateKey(match[1]) : undefined
      if (!caller) throw new AppError('unauthenticated', 'the API key is not valid')
      request.user = caller.user
      request.agentId = `key:${caller.keyId}`
      return
    }
    const sessionId = request.cookies[SESSION_COOKIE]
    const user = sessionId ? await services.sessions.resolve(sessionId) : undefined
    if (!user) throw new AppError('unauthenticated', 'send an API key as "Authorization: Bearer sy_…" or sign in')
    if (STATE_CHANGING.has(request.method) && request.headers.origin !== ownOrigin) {
      throw new AppError('forbidden', 'a signed-in browser request that changes state must come from this site')
    }
    request.user = user
    request.agentId = `user:${user.id}`
  })
}
