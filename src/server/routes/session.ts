import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { SESSION_TTL_MS } from '../../core/access/sessions.ts'
import type { User } from '../../core/access/users.ts'
import { AppError, notFound } from '../../core/errors.ts'
import type { SignInMethod } from '../../core/store/schema.ts'
import { parseOrThrow } from '../../core/validation.ts'
import type { Services } from '../../services.ts'
import { callerOf, SESSION_COOKIE } from '../auth.ts'

const KeyLogin = z.object({ api_key: z.string().min(1).max(200) }).strict()

type ById = { Params: { id: string } }

/**
 * Signing in and out, and a person's own sessions and password (docs/security.md, "People"). The
 * sign-in routes need no session, so they are where login CSRF would strike: each must come from this
 * site (Origin), and bodies are JSON only, which a cross-site form cannot send.
 */
/**
 * A fresh session for `user`: the one the browser came with (if any) is ended first, and the new one
 * has a new id, so a session id planted in the browser before sign-in is worth nothing. The cookie is
 * HttpOnly, SameSite=Lax, and Secure when the service is reached over https.
 */
export async function startBrowserSession(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  user: User,
  method: SignInMethod,
): Promise<void> {
  const previous = request.cookies[SESSION_COOKIE]
  if (previous) await services.sessions.destroy(previous)
  const session = await services.sessions.create(user.id, {
    method,
    userAgent: request.headers['user-agent'] ?? '',
  })
  reply.setCookie(SESSION_COOKIE, session.id, {
    httpOnly: true,
    sameSite: 'lax',
    secure: services.config.publicUrl.startsWith('https:'),
    path: '/',
    maxAge: SESSION_TTL_MS / 1000,
  })
}

export function sessionRoutes(app: FastifyInstance, services: Services) {
  const ownOrigin = new URL(services.config.publicUrl).origin

  /** Refuses a sign-in another site's page started (login CSRF); tools without an Origin may sign in. */
  const assertOwnOrigin = (request: FastifyRequest) => {
    const origin = request.headers.origin
    if (origin !== undefined && origin !== ownOrigin)
      throw new AppError('forbidden', 'sign in from this site: another site may not sign a browser in')
  }

  const startSession = (request: FastifyRequest, reply: FastifyReply, user: User, method: SignInMethod) =>
    startBrowserSession(services, request, reply, user, method)

  // With an API key (the first admin's generated one, or any) or with email and password.
  app.post('/v1/session', async (request, reply) => {
    assertOwnOrigin(request)
    const body = request.body
    const withKey = typeof body === 'object' && body !== null && 'api_key' in body
    let user: User
    if (withKey) {
      const { api_key } = parseOrThrow(KeyLogin, body)
      const caller = await services.users.authenticateKey(api_key)
      if (!caller) throw new AppError('unauthenticated', 'that API key is not valid')
      user = caller.user
    } else {
      user = await services.passwordSignIn.signIn(body ?? {}, request.ip)
    }
    await startSession(request, reply, user, withKey ? 'api_key' : 'password')
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
    return { id, email, name, plan, role, has_password: await services.ownPassword.hasPassword(id) }
  })

  app.put('/v1/me/password', async (request, reply) => {
    const user = callerOf(request)
    await services.ownPassword.change(user, request.body ?? {})
    // Anyone else signed in as this person is out; this browser stays signed in.
    await services.sessions.endAll(user.id, request.sessionId)
    return reply.status(204).send()
  })

  app.get('/v1/me/sessions', async (request) => {
    const user = callerOf(request)
    return { sessions: await services.sessions.list(user.id, request.sessionId) }
  })

  // Sign out everywhere: every browser session of this person ends, this one too.
  app.delete('/v1/me/sessions', async (request, reply) => {
    const user = callerOf(request)
    const ended = await services.sessions.endAll(user.id)
    if (request.sessionId) reply.clearCookie(SESSION_COOKIE, { path: '/' })
    return { ended }
  })

  app.delete<ById>('/v1/me/sessions/:id', async (request, reply) => {
    const user = callerOf(request)
    if (!(await services.sessions.end(user.id, request.params.id))) throw notFound('session')
    if (request.params.id === request.sessionId) reply.clearCookie(SESSION_COOKIE, { path: '/' })
    return reply.status(204).send()
  })

  // The page behind an invitation or reset link: whose it is, before the password is chosen.
  app.post('/v1/password-links/inspect', async (request) => {
    assertOwnOrigin(request)
    return services.passwordLinks.inspect(request.body ?? {})
  })

  // Accepting a link sets the password and signs this browser in (every earlier session has ended).
  app.post('/v1/password-links/accept', async (request, reply) => {
    assertOwnOrigin(request)
    const user = await services.passwordLinks.accept(request.body ?? {})
    await startSession(request, reply, user, 'link')
    return reply.status(204).send()
  })
}
