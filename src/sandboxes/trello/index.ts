import Fastify, { type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { handleApi } from './api.ts'
import { handleAppKey } from './app-key.ts'
import { ControlApi } from './control/index.ts'
import { invalidToken, routeNotFound, TOKEN_LIMIT_BODY } from './errors.ts'
import { faultName, type Fault } from '../kit/faults.ts'
import { authorizeFlow } from './grant/authorize.ts'
import { postGrant, showGrant, type GrantFlow } from './grant/flow.ts'
import { jsonResponse, textResponse, type IncomingRequest, type SandboxResponse } from './http.ts'
import { authorizeTokenFlow, getAccessToken, getRequestToken } from './oauth1/endpoints.ts'
import { TrelloSandbox, type TrelloSandboxOptions } from './sandbox.ts'
import { incomingRequest, sendSandboxResponse } from '../kit/fastify.ts'

export type { TrelloSandboxOptions } from './sandbox.ts'
export { SEED } from './seed.ts'

/** Prefix the standalone server mounts the plugin at. */
export const DEFAULT_PREFIX = '/trello'

/** What an injected fault answers: Trello's token-limit 429, its `invalid token` 401, or a plain-text error. */
function faultResponse(fault: Fault): SandboxResponse | undefined {
  if (fault.rate_limit) {
    const retry = fault.rate_limit.retry_after
    return jsonResponse(429, TOKEN_LIMIT_BODY, retry === null ? {} : { 'retry-after': String(retry) })
  }
  if (fault.status === 401) return invalidToken()
  if (fault.status !== undefined) return textResponse(fault.status, `Injected fault (status ${fault.status})`)
  return undefined
}

/** `/1/...` paths that are pages (never faulted) rather than API or token endpoints. */
const PAGES = new Set(['/1/authorize', '/1/OAuthAuthorizeToken'])

/**
 * The Trello sandbox as a Fastify plugin; the host registers it with `{ prefix: '/trello' }`.
 * Under the prefix: the REST API at `/1/...`, the authorize page and OAuth 1.0a endpoints at
 * `/1/authorize` and `/1/OAuth*`, the developer page at `/app-key`, the control API at
 * `/_control/...`. One catch-all route feeds the sandbox's own router, so unknown paths get
 * Trello's plain-text 404 rather than Fastify's JSON.
 */
export function trelloSandbox(opts: TrelloSandboxOptions = {}): FastifyPluginAsync {
  return async (app) => {
    const sb = new TrelloSandbox(opts)
    const prefix = app.prefix
    const control = new ControlApi(sb, prefix)

    // Bodies stay raw and are parsed per endpoint (form, JSON, signed OAuth bodies). This only
    // changes the plugin's own encapsulated scope.
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body))

    const flows = new Map<string, (origin: string) => GrantFlow>([
      ['/1/authorize', (origin) => authorizeFlow(sb, `${origin}${prefix}/1/authorize`)],
      ['/1/OAuthAuthorizeToken', (origin) => authorizeTokenFlow(sb, `${origin}${prefix}/1/OAuthAuthorizeToken`)],
    ])

    const route = async (req: IncomingRequest, relative: string): Promise<SandboxResponse> => {
      const flow = flows.get(relative)
      if (flow) {
        if (req.method === 'GET' || req.method === 'HEAD') return showGrant(sb, req, flow(req.origin))
        if (req.method === 'POST') return postGrant(sb, req, flow(req.origin))
        return routeNotFound()
      }
      if (relative === '/1/OAuthGetRequestToken' && (req.method === 'GET' || req.method === 'POST')) return getRequestToken(sb, req)
      if (relative === '/1/OAuthGetAccessToken' && (req.method === 'GET' || req.method === 'POST')) return getAccessToken(sb, req)
      if (relative.startsWith('/1/')) return handleApi(sb, req, relative)
      if (relative === '/app-key' || relative === '/app-key/') return handleAppKey(sb, req, `${req.origin}${prefix}/app-key`, `${req.origin}${prefix}`)
      return routeNotFound()
    }

    const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const req = incomingRequest(request)
      const relative = req.path.slice(prefix.length) || '/'
      if (relative === '/_control' || relative.startsWith('/_control/')) {
        return sendSandboxResponse(reply, await control.handle(req, relative.slice('/_control'.length), `${req.origin}${prefix}`))
      }
      const startedAt = sb.now()
      const faultable = relative.startsWith('/1/') && !PAGES.has(relative)
      const fault = faultable ? sb.faults.take(req.method, req.path, relative) : undefined
      if (fault?.latency_ms) await sleep(fault.latency_ms)
      if (fault?.drop) {
        sb.requestLog.record(req, null, startedAt, sb.now(), faultName(fault))
        reply.hijack()
        request.raw.socket.destroy()
        return
      }
      const response = (fault && faultResponse(fault)) ?? (await route(req, relative))
      sb.requestLog.record(req, response.status, startedAt, sb.now(), fault ? faultName(fault) : null)
      return sendSandboxResponse(reply, response)
    }

    app.addHook('onClose', async () => sb.close())
    app.all('/', handle)
    app.all('/*', handle)
  }
}

export interface StartedTrelloSandbox {
  /** e.g. `http://127.0.0.1:41234/trello`; the API is at `${url}/1/...`. */
  url: string
  close(): Promise<void>
}

/** Starts a standalone sandbox on 127.0.0.1 (port 0 = ephemeral) with the plugin at `/trello`. */
export async function startTrelloSandbox(opts: TrelloSandboxOptions & { port?: number; host?: string } = {}): Promise<StartedTrelloSandbox> {
  const { port = 0, host = '127.0.0.1', ...sandboxOptions } = opts
  const app = Fastify({ logger: false })
  await app.register(trelloSandbox(sandboxOptions), { prefix: DEFAULT_PREFIX })
  await app.listen({ port, host })
  const address = app.server.address() as AddressInfo
  const hostPart = host.includes(':') ? `[${host}]` : host
  return { url: `http://${hostPart}:${address.port}${DEFAULT_PREFIX}`, close: () => app.close() }
}
