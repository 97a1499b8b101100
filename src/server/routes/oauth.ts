import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { CALLBACK_PATH } from '../../core/connections/connect.ts'
import { AppError } from '../../core/errors.ts'
import type { Services } from '../../services.ts'
import { toAppError } from '../problem.ts'

const BINDING_COOKIE_PATH = '/oauth'

/** One cookie per pending flow, so two connects started side by side in one browser both work. */
function bindingCookieName(flowKey: string): string {
  return `sy_connect_${createHash('sha256').update(flowKey).digest('hex').slice(0, 16)}`
}

export function oauthRoutes(app: FastifyInstance, services: Services) {
  const secure = services.config.publicUrl.startsWith('https:')

  // The browser opens the connect URL; bind the flow to it and send it to the platform.
  app.get<{ Params: { token: string } }>('/oauth/start/:token', async (request, reply) => {
    try {
      const { authorizeUrl, binding, flowKey } = await services.connect.begin(request.params.token)
      reply.setCookie(bindingCookieName(flowKey), binding, {
        httpOnly: true, sameSite: 'lax', secure, path: BINDING_COOKIE_PATH, maxAge: 15 * 60,
      })
      return reply.redirect(authorizeUrl, 302)
    } catch (err) {
      return backToApp(reply, toAppError(err))
    }
  })

  app.get<{ Querystring: Record<string, string | undefined> }>(CALLBACK_PATH, async (request, reply) => {
    const { state: flowKey, code, error, error_description, oauth_token, oauth_verifier, oauth_problem } = request.query
    const cookieName = flowKey ? bindingCookieName(flowKey) : undefined
    if (cookieName) reply.clearCookie(cookieName, { path: BINDING_COOKIE_PATH })
    try {
      const integration = await services.connect.complete({
        flowKey, code, requestToken: oauth_token, verifier: oauth_verifier,
        // OAuth 1.0a reports a refusal as oauth_problem (user_refused).
        error: error ?? (oauth_problem === 'user_refused' ? 'access_denied' : oauth_problem), error_description,
        binding: cookieName ? request.cookies[cookieName] : undefined,
      })
      return reply.redirect(`/integrations?connected=${encodeURIComponent(integration.id)}`, 303)
    } catch (err) {
      return backToApp(reply, toAppError(err))
    }
  })
}

/** Failures land on the integrations page with the message and the troubleshooting rules. */
function backToApp(reply: FastifyReply, err: AppError) {
  const params = new URLSearchParams({ error: err.message, code: err.code })
  if (err.extras.troubleshooting) {
    params.set('troubleshooting', JSON.stringify(err.extras.troubleshooting.rules))
    params.set('applies', JSON.stringify(err.extras.troubleshooting.applies))
  }
  return reply.redirect(`/integrations?${params}`, 303)
}
