import Fastify, { type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { handleAccountRequest } from './account-routes.ts'
import { apiPath, resolveAddress } from './addressing.ts'
import { handleControlRequest } from './control.ts'
import { invalidEndpoint, invalidToken, noHelpDesk } from './errors.ts'
import type { Fault } from '../kit/faults.ts'
import { jsonResponse, type SandboxResponse } from './http.ts'
import { accountLimit, tooManyRequests } from './rate-limit.ts'
import { ZendeskSandbox, type ZendeskSandboxOptions } from './sandbox.ts'
import { incomingRequest, sendSandboxResponse } from '../kit/fastify.ts'

export type { ZendeskSandboxOptions } from './sandbox.ts'

/** Prefix the standalone server mounts the plugin at. */
export const DEFAULT_PREFIX = '/zendesk'

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/**
 * What an injected fault answers: a 401 is Zendesk's own invalid-token answer; other statuses a JSON
 * error body [UNV: Zendesk's 5xx bodies are not captured].
 */
function faultResponse(fault: Fault, limit: number): SandboxResponse | undefined {
  if (fault.rate_limit) return tooManyRequests(limit, fault.rate_limit.retry_after ?? 1)
  if (fault.status === 401) return invalidToken()
  if (fault.status !== undefined) {
    const headers: Record<string, string> = fault.retry_after !== undefined ? { 'retry-after': String(fault.retry_after) } : {}
    return jsonResponse(fault.status, { error: 'ServerError', description: `Injected fault (status ${fault.status})` }, headers)
  }
  return undefined
}

/**
 * The Zendesk sandbox as a Fastify plugin. The host app registers it with
 * `{ prefix: '/zendesk' }`; every account lives at `{prefix}/{subdomain}` and the control
 * API at `{prefix}/_control`. One catch-all route feeds the sandbox's own router, so unknown
 * paths get Zendesk's 404 bodies rather than Fastify's.
 */
export function zendeskSandbox(opts: ZendeskSandboxOptions = {}): FastifyPluginAsync {
  return async (app) => {
    const sandbox = new ZendeskSandbox(opts)
    const prefix = app.prefix

    // Bodies are kept raw and parsed per endpoint: API JSON errors, OAuth JSON or form bodies,
    // and control JSON each need their own answer to a bad body. Only this plugin's scope changes.
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body))

    const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const startedAt = sandbox.now()
      const req = incomingRequest(request)
      const relative = safeDecode(req.path.slice(prefix.length)) || '/'
      const address = resolveAddress(relative, request.headers.host ?? '', req.origin, prefix)
      const mutating = req.method !== 'GET' && req.method !== 'HEAD'
      if (address.kind === 'control') {
        const response = handleControlRequest(sandbox, req, address.path, `${req.origin}${prefix}`)
        if (mutating) sandbox.persist()
        return sendSandboxResponse(reply, response)
      }

      const subdomain = address.kind === 'account' ? address.subdomain : null
      const account = subdomain ? sandbox.store.account(subdomain) : undefined
      const accountPath = address.kind === 'account' ? apiPath(address.rest) : relative
      const faultable = accountPath.startsWith('/api/') || accountPath === '/oauth/tokens'
      const fault = faultable ? sandbox.faults.take(req.method, req.path, accountPath) : undefined
      const faultName = fault ? (fault.drop ? 'drop' : fault.rate_limit ? 'rate_limit' : fault.status ? `status_${fault.status}` : 'latency') : null

      if (fault?.latency_ms) await sleep(fault.latency_ms)
      if (fault?.drop) {
        sandbox.requestLog.record(req, account?.subdomain ?? subdomain, null, startedAt, sandbox.now(), faultName)
        reply.hijack()
        request.raw.socket.destroy()
        return
      }
      let response = fault ? faultResponse(fault, account ? accountLimit(account) : 0) : undefined
      if (!response) {
        if (address.kind === 'none') response = invalidEndpoint()
        else if (!account) response = noHelpDesk(address.subdomain)
        else response = await handleAccountRequest(sandbox, account, req, address.rest, address.base)
      }
      sandbox.requestLog.record(req, account?.subdomain ?? subdomain, response.status, startedAt, sandbox.now(), faultName)
      if (mutating) sandbox.persist()
      return sendSandboxResponse(reply, response)
    }

    app.addHook('onClose', async () => sandbox.persist())
    app.all('/', handle)
    app.all('/*', handle)
  }
}

export interface StartedZendeskSandbox {
  /** e.g. `http://127.0.0.1:41234/zendesk`; an account's base URL is `${url}/${subdomain}`. */
  url: string
  close(): Promise<void>
}

/** Starts a standalone sandbox on 127.0.0.1 (port 0 = ephemeral) with the plugin at `/zendesk`. */
export async function startZendeskSandbox(
  opts: ZendeskSandboxOptions & { port?: number; host?: string } = {},
): Promise<StartedZendeskSandbox> {
  const { port = 0, host = '127.0.0.1', ...sandboxOptions } = opts
  const app = Fastify({ logger: false })
  await app.register(zendeskSandbox(sandboxOptions), { prefix: DEFAULT_PREFIX })
  await app.listen({ port, host })
  const address = app.server.address() as AddressInfo
  const hostPart = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${hostPart}:${address.port}${DEFAULT_PREFIX}`,
    close: () => app.close(),
  }
}
