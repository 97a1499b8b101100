import type { FastifyInstance } from 'fastify'
import { SSO_FLOW_TTL_MS } from '../../core/access/sso.ts'
import { AppError } from '../../core/errors.ts'
import type { Services } from '../../services.ts'
import { startBrowserSession } from './session.ts'

/** Binds a single sign-on to the browser that started it; only the callback reads it. */
export const SSO_STATE_COOKIE = 'sy_sso_state'
const COOKIE_PATH = '/v1/sso'

/**
 * Single sign-on with OpenID Connect (docs/security.md, "People"). Every failure at the callback
 * sends the browser to the sign-in page with the reason, never anywhere else; a success sends it to
 * the `next` path it started with, a path of this site only.
 */
export function ssoRoutes(app: FastifyInstance, services: Services) {
  const secure = services.config.publicUrl.startsWith('https:')

  // For the sign-in page: whether to offer single sign-on, and what to call it.
  app.get('/v1/sso', async () =>
    services.sso ? { enabled: true, name: services.sso.name } : { enabled: false, name: null },
  )

  app.get<{ Querystring: { next?: string } }>('/v1/sso/start', async (request, reply) => {
    if (!services.sso)
      throw new AppError('not_configured', 'single sign-on is not configured (docs/configuration.md)')
    const { url, state } = await services.sso.start(request.query.next)
    reply.setCookie(SSO_STATE_COOKIE, state, {
      httpOnly: true,
      // Lax: the provider's redirect back is a top-level navigation, which carries it.
      sameSite: 'lax',
      secure,
      path: COOKIE_PATH,
      maxAge: SSO_FLOW_TTL_MS / 1000,
    })
    return reply.header('cache-control', 'no-store').redirect(url, 303)
  })

  app.get('/v1/sso/callback', async (request, reply) => {
    reply.clearCookie(SSO_STATE_COOKIE, { path: COOKIE_PATH })
    reply.header('cache-control', 'no-store')
    if (!services.sso) return reply.redirect('/login', 303)
    try {
      const callback = new URL(request.url, services.config.publicUrl)
      const { user, next } = await services.sso.finish(callback, request.cookies[SSO_STATE_COOKIE])
      await startBrowserSession(services, request, reply, user, 'sso')
      return reply.redirect(next, 303)
    } catch (err) {
      if (!(err instanceof AppError)) throw err
      return reply.redirect(`/login?${new URLSearchParams({ sso_error: err.message })}`, 303)
    }
  })
}
