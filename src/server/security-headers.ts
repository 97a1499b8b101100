import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import helmet from 'helmet'

/**
 * Security headers on every response, API, web app, errors and 404s alike (docs/security.md).
 * The web app is a bundle of same-origin scripts and styles that talks only to this origin, so the
 * policy allows nothing else. Pages may not be framed anywhere (clickjacking), nothing is sniffed,
 * and no referrer leaves: a URL can carry a connect link's result. A server-rendered page that needs
 * a different policy sets its own header (connect-confirm-page.ts does).
 *
 * helmet's middleware is built once, here (the Fastify wrapper, @fastify/helmet, built it again for
 * every request, which cost the webhook intake about a tenth of its time, docs/benchmarks.md). Even
 * built once, it composes every header again for each response, the policy string included; with
 * nothing in the policy that varies by request (no nonces), its headers are taken once and set as they are.
 */
export async function registerSecurityHeaders(app: FastifyInstance, publicUrl: string) {
  const https = publicUrl.startsWith('https:')
  const setHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'script-src-attr': ["'none'"],
        'style-src': ["'self'"],
        'img-src': ["'self'", 'data:'],
        'font-src': ["'self'"],
        'connect-src': ["'self'"],
        'object-src': ["'none'"],
        'base-uri': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        // Over plain HTTP (the embedded default on 127.0.0.1) upgrading would break every load.
        ...(https ? { 'upgrade-insecure-requests': [] } : {}),
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // The connect pop-up hands its result to the page that opened it (window.opener), after a round
    // trip through the platform's origin: an isolating opener policy would cut that link.
    crossOriginOpenerPolicy: false,
    // Only meaningful over HTTPS; a browser ignores it on plain HTTP anyway.
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  })
  const headers = headersOf(setHeaders)
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value)
    done()
  })
}

/** The headers a helmet middleware sets on a response (it reads nothing of the request). */
function headersOf(middleware: ReturnType<typeof helmet>): Array<[string, string]> {
  const headers = new Map<string, string>()
  const response = {
    setHeader: (name: string, value: string) => headers.set(name, value),
    removeHeader: (name: string) => headers.delete(name),
  }
  middleware({} as IncomingMessage, response as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err
  })
  return [...headers]
}
