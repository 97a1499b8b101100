import type { ServerOptions } from 'node:http'
import type { Config } from '../core/config.ts'

/**
 * A client that sends its request slowly holds a connection and its memory for as long as it likes:
 * Fastify turns Node's whole-request timeout off. So a whole request, body included, must arrive
 * within `requestTimeoutMs` and its headers within `headersTimeoutMs`; after that Node answers 408
 * and closes the connection (docs/configuration.md). Only receiving is timed: a slow tool step
 * answering is not cut off.
 */
export function requestTimeouts(config: Pick<Config, 'requestTimeoutMs' | 'headersTimeoutMs'>): {
  requestTimeout: number
  http: ServerOptions
} {
  const requestTimeout = config.requestTimeoutMs
  const headersTimeout = Math.min(config.headersTimeoutMs, requestTimeout) // Node requires headers ≤ request
  return {
    requestTimeout,
    http: {
      headersTimeout,
      // Node checks for late requests on this interval (30 s by default), so a deadline is kept
      // to within a quarter of it, at most a second late.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
  }
}
