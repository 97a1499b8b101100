import type { FastifyInstance } from 'fastify'

// What every HTTP server of this repository shares, the service's (server/app.ts) and the sandboxes'
// (sandboxes/kit/start.ts): it knows neither, so both may import it (docs/architecture.md, "Layout").

/**
 * Stopping a server waits for the requests in progress, then ends. Node's `server.close()` closes
 * only the connections idle at that moment, and Fastify says `Connection: close` only to requests
 * that arrive while it closes; a keep-alive connection whose request was in progress when the stop
 * began was answered and then kept, idle, for Fastify's keep-alive timeout (72 s), and the stop
 * waited for it: a rolling deploy held each instance a minute longer, and a test stack's close hung
(the service's and the sandboxes' alike).
 * So every answer sent once closing has begun says `Connection: close`, and Node closes its
 * connection when the answer is written (docs/scaling.md, "Stopping an instance").
 */
export function registerDrainOnClose(app: FastifyInstance) {
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing && request.raw.httpVersionMajor < 2) reply.header('connection', 'close')
    done(null, payload)
  })
}
