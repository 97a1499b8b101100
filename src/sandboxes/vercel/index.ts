import type { FastifyPluginAsync } from 'fastify'
import { accountRoutes } from './account.ts'
import { handleControl } from './control.ts'
import { deploymentRoutes } from './deployments.ts'
import { internalError, vercelError } from './errors.ts'
import type { Fault } from '../kit/faults.ts'
import { decodeOrKeep, type IncomingRequest as KitRequest } from '../kit/http.ts'
import type { IncomingRequest, SandboxResponse } from './http.ts'
import { INSPECTOR_PATH, inspectorPage } from './inspector-page.ts'
import { handleAccessToken } from './oauth.ts'
import { handleInstall, handleWebhookSettings } from './pages.ts'
import { projectRoutes } from './projects.ts'
import { rateLimited } from './rate-limit.ts'
import { ApiRouter, handleApi } from './router.ts'
import { VercelSandbox, type VercelSandboxOptions } from './sandbox.ts'
import { webhookRoutes } from './webhooks.ts'
import { sandboxPlugin, withRetryAfter } from '../kit/plugin.ts'
import { HomeForms } from '../kit/home-page.ts'
import { postVercelHome, vercelHomePage } from './home-page.ts'
import { handleAccountTokens } from './account-tokens-page.ts'

export { SEED } from './seed.ts'
export { sign as vercelSignature } from './delivery.ts'
export type { VercelSandboxOptions } from './sandbox.ts'

/** Prefix the standalone server mounts the plugin at. */
export const DEFAULT_PREFIX = '/vercel'

/** How often (real time) clock-driven deployment transitions are checked. */
const TICK_MS = 200

const router = new ApiRouter([...accountRoutes, ...deploymentRoutes, ...projectRoutes, ...webhookRoutes])

/** The Vercel handlers read paths relative to the prefix and build URLs from the base. */
function toIncoming(req: KitRequest, relative: string, root: string): IncomingRequest {
  const { method, path, query, headers, rawBody, remoteAddress } = req
  return { method, path: relative, fullPath: path, query, headers, rawBody, base: root, remoteAddress }
}

function faultReply(sandbox: VercelSandbox, fault: Fault): SandboxResponse | undefined {
  const now = sandbox.now()
  if (fault.rate_limit)
    return rateLimited(
      sandbox.rateLimiter.config.default.limit,
      now + (fault.rate_limit.retry_after ?? 1) * 1000,
      now,
    )
  if (fault.status === undefined) return undefined
  const response =
    fault.status === 500
      ? internalError()
      : vercelError(fault.status, 'internal_server_error', `Injected fault (status ${fault.status})`)
  return withRetryAfter(fault, response)
}

/**
 * The Vercel sandbox as a Fastify plugin, registered with `{ prefix: '/vercel' }`. The home page
 * (projects, deployments, a deploy form) is the prefix itself. Unknown paths get Vercel's JSON 404.
 */
export function vercelSandbox(opts: VercelSandboxOptions = {}): FastifyPluginAsync {
  return sandboxPlugin(() => {
    const sandbox = new VercelSandbox(opts)
    const homeForms = new HomeForms()
    const ticker = setInterval(() => sandbox.tick(), TICK_MS)
    ticker.unref()
    return {
      machinery: sandbox,
      beforeRequest: () => sandbox.tick(),
      control: (req, path, root) =>
        handleControl(sandbox, toIncoming(req, `/_control${path === '/' ? '' : path}`, root), path),
      faultReply: (fault) => faultReply(sandbox, fault),
      route: (kitReq, relative, root) => {
        const req = toIncoming(kitReq, relative, root)
        const install = /^\/integrations\/([^/]+)\/new\/?$/.exec(relative)
        const settings = /^\/projects\/([^/]+)\/settings\/webhooks\/?$/.exec(relative)
        const inspector = req.method === 'GET' ? INSPECTOR_PATH.exec(relative) : null
        const home = relative === '/' && ['GET', 'HEAD', 'POST'].includes(req.method)
        const tokens = /^\/account\/tokens\/?$/.test(relative) && ['GET', 'HEAD', 'POST'].includes(req.method)
        return {
          // Faults apply to the API and the token endpoint, never to the pages.
          faultPath: install || settings || home || tokens ? undefined : relative,
          answer: () => {
            if (tokens) return handleAccountTokens(sandbox, req)
            if (home)
              return req.method === 'POST'
                ? postVercelHome(sandbox, router, homeForms, req)
                : vercelHomePage(sandbox, homeForms, req)
            if (install) return handleInstall(sandbox, req, decodeOrKeep(install[1] as string))
            if (settings) return handleWebhookSettings(sandbox, req, decodeOrKeep(settings[1] as string))
            const page =
              inspector && !install && !settings ? inspectorPage(sandbox, inspector[3] as string) : undefined
            if (page) return page
            if (relative === '/v2/oauth/access_token') return handleAccessToken(sandbox, req)
            return handleApi(sandbox, router, req)
          },
        }
      },
      close: async () => {
        clearInterval(ticker)
        await sandbox.close()
      },
    }
  })
}
