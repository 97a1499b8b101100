import fastifyHelmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'

/**
 * Security headers on every response, API, web app, errors and 404s alike (docs/security.md).
 * The web app is a bundle of same-origin scripts and styles that talks only to this origin, so the
 * policy allows nothing else. Pages may not be framed anywhere (clickjacking), nothing is sniffed,
 * and no referrer leaves: a URL can carry a connect link's result. A server-rendered page that needs
 * more (say, a form whose answer redirects to a platform's origin, which `form-action 'self'` stops)
 * widens the policy for its own route only, with the route option `helmet: { contentSecurityPolicy }`.
 */
export async function registerSecurityHeaders(app: FastifyInstance, publicUrl: string) {
  const https = publicUrl.startsWith('https:')
  await app.register(fastifyHelmet, {
    global: true,
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
}
