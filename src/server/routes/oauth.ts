import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CALLBACK_PATH } from '../../core/connections/connect.ts'
import { AppError } from '../../core/errors.ts'
import type { Services } from '../../services.ts'
import { SESSION_COOKIE } from '../auth.ts'
import {
  cancelledPage,
  CONFIRM_STYLESHEET,
  CONFIRM_STYLESHEET_PATH,
  confirmPage,
  sendPage,
} from '../connect-confirm-page.ts'
import { toAppError } from '../problem.ts'

const BINDING_COOKIE_PATH = '/oauth'

type StartParams = { Params: { token: string } }

/** One cookie per pending flow, so two connects started side by side in one browser both work. */
function bindingCookieName(flowKey: string): string {
  return `sy_connect_${createHash('sha256').update(flowKey).digest('hex').slice(0, 16)}`
}

export function oauthRoutes(app: FastifyInstance, services: Services) {
  const secure = services.config.publicUrl.startsWith('https:')

  const ownOrigin = new URL(services.config.publicUrl).origin
  const setBinding = (reply: FastifyReply, flowKey: string, binding: string) =>
    reply.setCookie(bindingCookieName(flowKey), binding, {
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: BINDING_COOKIE_PATH,
      maxAge: 15 * 60,
    })

  app.get(CONFIRM_STYLESHEET_PATH, async (_request, reply) =>
    reply
      .header('content-type', 'text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(CONFIRM_STYLESHEET),
  )

  // The browser opens the connect URL: bind the flow to it, then ask whose account the platform
  // account will join before going on (docs/security.md). The link's owner, signed in here, goes
  // straight on: it is their own account.
  app.get<StartParams>('/oauth/start/:token', async (request, reply) => {
    try {
      const { token } = request.params
      const flow = await services.connect.pending(
        token,
        (flowKey) => request.cookies[bindingCookieName(flowKey)],
      )
      let binding = request.cookies[bindingCookieName(flow.flowKey)]
      if (flow.binding === 'another_browser')
        throw new AppError(
          'connect_failed',
          'this connect link was already opened in another browser; start connecting again',
        )
      if (flow.binding === 'unbound') {
        binding = await services.connect.bind(token)
        setBinding(reply, flow.flowKey, binding)
      }
      if (await signedInAs(request, flow.ownerId)) {
        return reply.redirect((await services.connect.begin(token, binding)).authorizeUrl, 302)
      }
      return sendPage(reply, confirmPage(flow, token))
    } catch (err) {
      return backToApp(reply, toAppError(err))
    }
  })

  // Continue and Cancel are form POSTs from the page above: the link's secret token, the binding
  // cookie (SameSite=Lax: never sent on another site's POST) and, where the browser sends it, our
  // own Origin. The forms carry no fields; their bodies are read only in this scope.
  void app.register(async (forms) => {
    forms.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 },
      (_request, _body, done) => done(null, {}),
    )
    confirmationAnswers(forms)
  })

  function confirmationAnswers(forms: FastifyInstance) {
    forms.post<StartParams>('/oauth/start/:token/continue', async (request, reply) => {
      try {
        const { binding } = await confirmedFlow(request)
        const { authorizeUrl } = await services.connect.begin(request.params.token, binding)
        return reply.header('referrer-policy', 'no-referrer').redirect(authorizeUrl, 303)
      } catch (err) {
        return backToApp(reply, toAppError(err))
      }
    })

    forms.post<StartParams>('/oauth/start/:token/cancel', async (request, reply) => {
      try {
        const { flow, binding } = await confirmedFlow(request)
        await services.connect.cancel(request.params.token, binding)
        reply.clearCookie(bindingCookieName(flow.flowKey), { path: BINDING_COOKIE_PATH })
        // The owner (for example in the web app's pop-up) goes back to the app, which reports it.
        if (await signedInAs(request, flow.ownerId)) {
          return reply.redirect(
            `/integrations?${new URLSearchParams({ error: 'Connecting was cancelled; nothing was connected.' })}`,
            303,
          )
        }
        return sendPage(reply, cancelledPage(flow))
      } catch (err) {
        return backToApp(reply, toAppError(err))
      }
    })
  }

  async function confirmedFlow(request: FastifyRequest<StartParams>) {
    const origin = request.headers.origin
    if (origin !== undefined && origin !== ownOrigin)
      throw new AppError('forbidden', 'this confirmation must be sent from this site')
    const flow = await services.connect.pending(
      request.params.token,
      (flowKey) => request.cookies[bindingCookieName(flowKey)],
    )
    return { flow, binding: request.cookies[bindingCookieName(flow.flowKey)] }
  }

  async function signedInAs(request: FastifyRequest, userId: string): Promise<boolean> {
    const sessionId = request.cookies[SESSION_COOKIE]
    return sessionId !== undefined && (await services.sessions.resolve(sessionId))?.id === userId
  }

  app.get<{ Querystring: Record<string, string | undefined> }>(CALLBACK_PATH, async (request, reply) => {
    const {
      state: flowKey,
      code,
      error,
      error_description,
      oauth_token,
      oauth_verifier,
      oauth_problem,
    } = request.query
    const cookieName = flowKey ? bindingCookieName(flowKey) : undefined
    if (cookieName) reply.clearCookie(cookieName, { path: BINDING_COOKIE_PATH })
    try {
      const integration = await services.connect.complete({
        flowKey,
        code,
        requestToken: oauth_token,
        verifier: oauth_verifier,
        // OAuth 1.0a reports a refusal as oauth_problem (user_refused).
        error: error ?? (oauth_problem === 'user_refused' ? 'access_denied' : oauth_problem),
        error_description,
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
