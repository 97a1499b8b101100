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
    /** Set when an external agent calls with its run token: its tool calls land on this run's timeline. */
    runId: string | null
    /** The public id of the web session the request came with, if it came with one. */
    sessionId: string | null
  }
}

/** What a run token may do: call and look up tool steps, read its own run, and report the run finished. */
const RUN_TOKEN_ROUTES: Array<[string, RegExp]> = [
  ['GET', /^\/v1\/tools(\/[^/]+)?$/],
  ['GET', /^\/v1\/tools\/[^/]+\/options\/[^/]+$/],
  ['POST', /^\/v1\/tools\/[^/]+\/run$/],
  ['GET', /^\/v1\/integrations$/],
  ['GET', /^\/v1\/runs\/[^/]+$/],
  ['POST', /^\/v1\/runs\/[^/]+\/complete$/],
]

/** The authenticated caller; routes under /v1 only run once this has succeeded. */
export function callerOf(request: FastifyRequest): User {
  if (!request.user)
    throw new AppError('unauthenticated', 'send an API key as "Authorization: Bearer sy_…" or sign in')
  return request.user
}

/**
 * Every /v1 route needs an API key (Bearer) or a web session. Requests riding on the session cookie
 * that change state must come from our own origin: that, plus SameSite=Lax, stops cross-site forgery.
 */
export function registerCallerAuth(
  app: FastifyInstance,
  services: Services,
  options: { publicRoutes: string[] },
) {
  const ownOrigin = new URL(services.config.publicUrl).origin
  app.decorateRequest('user', null)
  app.decorateRequest('agentId', null)
  app.decorateRequest('runId', null)
  app.decorateRequest('sessionId', null)
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]
    if (!path.startsWith('/v1/') || options.publicRoutes.includes(`${request.method} ${path}`)) return
    const authorization = request.headers.authorization
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization)
      if (match?.[1].startsWith('syr_')) {
        const run = await services.runs.byToken(match[1])
        const user = run ? await services.users.get(run.userId) : undefined
        if (!run || !user)
          throw new AppError('unauthenticated', 'the run token is not valid, or its run has finished')
        if (!RUN_TOKEN_ROUTES.some(([method, pattern]) => method === request.method && pattern.test(path))) {
          throw new AppError(
            'forbidden',
            'a run token can only call tool steps, read its run and report it finished; use an API key for the rest',
          )
        }
        request.user = user
        request.agentId = `run:${run.runId}`
        request.runId = run.runId
        return
      }
      const caller = match ? await services.users.authenticateKey(match[1]) : undefined
      if (!caller) throw new AppError('unauthenticated', 'the API key is not valid')
      request.user = caller.user
      request.agentId = `key:${caller.keyId}`
      return
    }
    const cookie = request.cookies[SESSION_COOKIE]
    const session = cookie ? await services.sessions.resolveSession(cookie) : undefined
    const user = session?.user
    if (!user)
      throw new AppError('unauthenticated', 'send an API key as "Authorization: Bearer sy_…" or sign in')
    if (STATE_CHANGING.has(request.method) && request.headers.origin !== ownOrigin) {
      throw new AppError(
        'forbidden',
        'a signed-in browser request that changes state must come from this site',
      )
    }
    request.user = user
    request.sessionId = session.sessionId
    request.agentId = `user:${user.id}`
  })
}
