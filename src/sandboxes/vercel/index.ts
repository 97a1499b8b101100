import Fastify, { type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { accountRoutes } from './account.ts'
import { handleControl } from './control.ts'
import { deploymentRoutes } from './deployments.ts'
import { vercelError } from './errors.ts'
import { faultName, type Fault } from '../kit/faults.ts'
import { jsonResponse, type IncomingRequest, type SandboxResponse } from './http.ts'
import { handleAccessToken } from './oauth.ts'
import { handleInstall, handleWebhookSettings } from './pages.ts'
import { projectRoutes } from './projects.ts'
import { rateLimited } from './rate-limit.ts'
import { ApiRouter, handleApi } from './router.ts'
import { VercelSandbox, type VercelSandboxOptions } from './sandbox.ts'
import { webhookRoutes } from './webhooks.ts'
import { incomingRequest, sendSandboxResponse } from '../kit/fastify.ts'

export { SEED } from './seed.ts'
export { sign as vercelSignature } from './delivery.ts'
export type { VercelSandboxOptions } from './sandbox.ts'

/** Prefix the standalone server mounts the plugin at. */
export const DEFAULT_PREFIX = '/vercel'

/** How often (real time) clock-driven deployment transitions are checked. */
const TICK_MS = 200

const router = new ApiRouter([...accountRoutes, ...deploymentRoutes, ...projectRoutes, ...webhookRoutes])

function toIncoming(request: FastifyRequest, prefix: string): IncomingRequest {
  const { method, path, query, headers, rawBody, origin } = incomingRequest(request)
  return { method, path: path.slice(prefix.length) || '/', fullPath: path, query, headers, rawBody, base: `${origin}${prefix}`, remoteAddress: request.ip }
}

function faultResponse(sandbox: VercelSandbox, fault: Fault): SandboxResponse | undefined {
  const now = sandbox.now()
  if (fault.rate_limit) return rateLimited(sandbox.rateLimiter.config.default.limit, now + (fault.rate_limit.retry_after ?? 1) * 1000, now)
  if (fault.status !== undefined) {
    const headers: Record<string, string> = fault.retry_after !== undefined ? { 'retry-after': String(fault.retry_after) } : {}
    const response =
      fault.status === 500
        ? vercelError(500, 'internal_server_error', 'An unexpected internal error occurred')
        : jsonResponse(fault.status, { error: { code: 'internal_server_error', message: `Injected fault (status ${fault.status})` } })
    Object.assign(response.headers, headers)
    return response
  }
  return undefined
}

/**
 * The Vercel sandbox as a Fastify plugin, registered with `{ prefix: '/vercel' }`. One catch-all
 * route feeds the sandbox's own router so unknown paths get Vercel's JSON 404, not Fastify's.
 */
export function vercelSandbox(opts: VercelSandboxOptions = {}): FastifyPluginAsync {
  return async (app) => {
    const sandbox = new VercelSandbox(opts)
    const prefix = app.prefix
    const ticker = setInterval(() => sandbox.tick(), TICK_MS)
    ticker.unref()

    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body))

    const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      sandbox.tick()
      const startedAt = sandbox.now()
      const req = toIncoming(request, prefix)
      const path = req.path
      if (path === '/_control' || path.startsWith('/_control/')) {
        return sendSandboxResponse(reply, await handleControl(sandbox, req, path.slice('/_control'.length) || '/'))
      }
      const install = /^\/integrations\/([^/]+)\/new\/?$/.exec(path)
      const settings = /^\/projects\/([^/]+)\/settings\/webhooks\/?$/.exec(path)
      const isToken = path === '/v2/oauth/access_token'
      const isApi = !install && !settings && !isToken

      const fault = isApi || isToken ? sandbox.faults.take(req.method, req.fullPath, path) : undefined
      if (fault?.latency_ms) await sleep(fault.latency_ms)
      if (fault?.drop) {
        sandbox.requestLog.record(req, null, startedAt, sandbox.now(), 'drop')
        reply.hijack()
        request.raw.socket.destroy()
        return
      }
      let response = fault ? faultResponse(sandbox, fault) : undefined
      if (!response) {
        if (install) response = handleInstall(sandbox, req, decodeURIComponent(install[1] as string))
        else if (settings) response = handleWebhookSettings(sandbox, req, decodeURIComponent(settings[1] as string))
        else if (isToken) response = handleAccessToken(sandbox, req)
        else response = handleApi(sandbox, router, req)
      }
      sandbox.requestLog.record(req, response.status, startedAt, sandbox.now(), fault ? faultName(fault) : null)
      return sendSandboxResponse(reply, response)
    }

    app.addHook('onClose', async () => {
      clearInterval(ticker)
      await sandbox.close()
    })
    app.all('/', handle)
    app.all('/*', handle)
  }
}

export interface StartedVercelSandbox {
  /** e.g. `http://127.0.0.1:41234/vercel`. */
  url: string
  close(): Promise<void>
}

/** Starts a standalone sandbox on 127.0.0.1 (port 0 = ephemeral) with the plugin at `/vercel`. */
export async function startVercelSandbox(opts: VercelSandboxOptions & { port?: number; host?: string } = {}): Promise<StartedVercelSandbox> {
  const { port = 0, host = '127.0.0.1', ...sandboxOptions } = opts
  const app = Fastify({ logger: false })
  await app.register(vercelSandbox(sandboxOptions), { prefix: DEFAULT_PREFIX })
  await app.listen({ port, host })
  const address = app.server.address() as AddressInfo
  const hostPart = host.includes(':') ? `[${host}]` : host
  return { url: `http://${hostPart}:${address.port}${DEFAULT_PREFIX}`, close: () => app.close() }
}
