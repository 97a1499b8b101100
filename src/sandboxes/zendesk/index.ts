import type { FastifyPluginAsync } from 'fastify'
import { handleAccountRequest } from './account-routes.ts'
import { apiPath, resolveAddress } from './addressing.ts'
import { handleControlRequest } from './control.ts'
import { invalidEndpoint, invalidToken, noHelpDesk } from './errors.ts'
import type { Fault } from '../kit/faults.ts'
import { decodeOrKeep } from '../kit/http.ts'
import { header, jsonResponse, type SandboxResponse } from './http.ts'
import { sandboxPlugin, withRetryAfter, type RoutedRequest } from '../kit/plugin.ts'
import { accountLimit, tooManyRequests } from './rate-limit.ts'
import { ZendeskSandbox, type ZendeskSandboxOptions } from './sandbox.ts'
import { MAX_UPLOAD_BYTES } from './uploads.ts'
import { postZendeskHome, zendeskHomePage } from './home-page.ts'
import { HomeForms } from '../kit/home-page.ts'

export type { ZendeskSandboxOptions } from './sandbox.ts'

/** Prefix the standalone server mounts the plugin at. */
export const DEFAULT_PREFIX = '/zendesk'

interface ZendeskRequest extends RoutedRequest {
  /** The account's requests-per-minute limit (0 without an account), for an injected 429. */
  limit: number
}

/**
 * What an injected fault answers: Zendesk's 429; a 401 in Zendesk's own invalid-token words; other
 * statuses a JSON error body [UNV: Zendesk's 5xx bodies are not captured].
 */
function faultReply(fault: Fault, routed: ZendeskRequest): SandboxResponse | undefined {
  if (fault.rate_limit) return tooManyRequests(routed.limit, fault.rate_limit.retry_after ?? 1)
  if (fault.status === 401) return invalidToken()
  if (fault.status !== undefined)
    return withRetryAfter(
      fault,
      jsonResponse(fault.status, {
        error: 'ServerError',
        description: `Injected fault (status ${fault.status})`,
      }),
    )
  return undefined
}

/**
 * The Zendesk sandbox as a Fastify plugin. The host app registers it with
 * `{ prefix: '/zendesk' }`; every account lives at `{prefix}/{subdomain}`, the control
 * API at `{prefix}/_control` and the home page (accounts, tickets, forms to change them as a
 * person) at `{prefix}` itself.
 */
export function zendeskSandbox(opts: ZendeskSandboxOptions = {}): FastifyPluginAsync {
  return sandboxPlugin((prefix) => {
    const sandbox = new ZendeskSandbox(opts)
    const homeForms = new HomeForms()
    return {
      machinery: sandbox,
      // Room for the largest upload Zendesk takes (uploads.ts); the host app's own limit is smaller.
      bodyLimit: MAX_UPLOAD_BYTES + 1024 * 1024,
      control: (req, path, root) => handleControlRequest(sandbox, req, path, root),
      faultReply,
      close: () => sandbox.deliveries.stop(),
      route: (req, raw, root): ZendeskRequest => {
        const relative = decodeOrKeep(raw)
        // The home page (home-page.ts): the prefix itself, which names no account.
        if (relative === '/' && (req.method === 'GET' || req.method === 'HEAD' || req.method === 'POST'))
          return {
            limit: 0,
            account: null,
            answer: () =>
              req.method === 'POST'
                ? postZendeskHome(sandbox, homeForms, req, root)
                : zendeskHomePage(sandbox, homeForms, req, root),
          }
        const address = resolveAddress(relative, header(req, 'host') ?? '', req.origin, prefix)
        // `{prefix}//_control` and the like still reach the control API (logged, as any other request).
        if (address.kind === 'control')
          return {
            limit: 0,
            account: null,
            answer: () => handleControlRequest(sandbox, req, address.path, root),
          }
        if (address.kind === 'none') return { limit: 0, account: null, answer: invalidEndpoint }
        const account = sandbox.store.account(address.subdomain)
        const accountPath = apiPath(address.rest)
        const faultable = accountPath.startsWith('/api/') || accountPath === '/oauth/tokens'
        return {
          faultPath: faultable ? accountPath : undefined,
          account: account?.subdomain ?? address.subdomain,
          limit: account ? accountLimit(account) : 0,
          answer: () =>
            account
              ? handleAccountRequest(sandbox, account, req, address.rest, address.base)
              : noHelpDesk(address.subdomain),
        }
      },
    }
  })
}
