import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../core/errors.ts'
import { constantTimeEqual } from '../core/ids.ts'
import type { PrometheusMetrics } from '../core/metrics-registry.ts'

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])

/**
 * GET /metrics in the Prometheus text format. Who may read it (docs/operating.md): with
 * SWITCHYARD_METRICS_TOKEN set, whoever sends it as a Bearer token; without, only a scraper on this
 * machine talking to the service directly (loopback, and no proxy's forwarding header, since a
 * reverse proxy on the same host would otherwise publish the numbers to everyone).
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: PrometheusMetrics,
  token: string | undefined,
) {
  app.get('/metrics', async (request, reply) => {
    allowMetricsReader(request, token)
    const text = await metrics.registry.metrics()
    return reply.type(metrics.registry.contentType).header('cache-control', 'no-store').send(text)
  })
}

function allowMetricsReader(request: FastifyRequest, token: string | undefined): void {
  if (token) {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')
    if (!match || !constantTimeEqual(match[1], token)) {
      throw new AppError(
        'unauthenticated',
        'send the metrics token as "Authorization: Bearer …" (SWITCHYARD_METRICS_TOKEN)',
      )
    }
    return
  }
  const relayed = request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined
  if (!LOOPBACK.has(request.socket.remoteAddress ?? '') || relayed) {
    throw new AppError(
      'forbidden',
      'metrics are served only on loopback; set SWITCHYARD_METRICS_TOKEN to read them from elsewhere',
    )
  }
}
