import type { FastifyPluginAsync } from 'fastify'
import { handleApi } from './api.ts'
import { handleAppKey } from './app-key.ts'
import { ControlApi } from './control/index.ts'
import { invalidToken, routeNotFound, TOKEN_LIMIT_BODY } from './errors.ts'
import type { Fault } from '../kit/faults.ts'
import { authorizeFlow } from './grant/authorize.ts'
import { postGrant, showGrant, type GrantFlow } from './grant/flow.ts'
import { jsonResponse, textResponse, type IncomingRequest, type SandboxResponse } from './http.ts'
import { authorizeTokenFlow, getAccessToken, getRequestToken } from './oauth1/endpoints.ts'
import { TrelloSandbox, type TrelloSandboxOptions } from './sandbox.ts'
import { sandboxPlugin } from '../kit/plugin.ts'
import { CARD_PAGE_PATH, cardPage } from './card-page.ts'
import { postTrelloHome, trelloHomePage } from './home-page.ts'
import { HomeForms } from '../kit/home-page.ts'

export type { TrelloSandboxOptions } from './sandbox.ts'
export { SEED } from './seed.ts'

/** Prefix the standalone server mounts the plugin at. */
export const DEFAULT_PREFIX = '/trello'

/** What an injected fault answers: Trello's token-limit 429, its `invalid token` 401, or a plain-text error. */
function faultReply(fault: Fault): SandboxResponse | undefined {
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
 * `/1/authorize` and `/1/OAuth*`, the developer page at `/app-key`, the home page (members, boards
 * and forms to change a card as another member) at `/`, the control API at
 * `/_control/...`. Unknown paths get Trello's plain-text 404.
 */
export function trelloSandbox(opts: TrelloSandboxOptions = {}): FastifyPluginAsync {
  return sandboxPlugin((prefix) => {
    const sb = new TrelloSandbox(opts)
    const control = new ControlApi(sb, prefix)
    const homeForms = new HomeForms()
    const flows = new Map<string, (origin: string) => GrantFlow>([
      ['/1/authorize', (origin) => authorizeFlow(sb, `${origin}${prefix}/1/authorize`)],
      [
        '/1/OAuthAuthorizeToken',
        (origin) => authorizeTokenFlow(sb, `${origin}${prefix}/1/OAuthAuthorizeToken`),
      ],
    ])

    const answer = async (req: IncomingRequest, relative: string, root: string): Promise<SandboxResponse> => {
      const flow = flows.get(relative)
      if (flow) {
        if (req.method === 'GET' || req.method === 'HEAD') return showGrant(sb, req, flow(req.origin))
        if (req.method === 'POST') return postGrant(sb, req, flow(req.origin))
        return routeNotFound()
      }
      if (relative === '/1/OAuthGetRequestToken' && (req.method === 'GET' || req.method === 'POST'))
        return getRequestToken(sb, req)
      if (relative === '/1/OAuthGetAccessToken' && (req.method === 'GET' || req.method === 'POST'))
        return getAccessToken(sb, req)
      if (relative.startsWith('/1/')) return handleApi(sb, req, relative)
      if (relative === '/') {
        if (req.method === 'GET' || req.method === 'HEAD') return trelloHomePage(sb, homeForms, req, root)
        if (req.method === 'POST') return postTrelloHome(sb, homeForms, req, prefix, root)
      }
      if (relative === '/app-key' || relative === '/app-key/')
        return handleAppKey(sb, req, `${root}/app-key`, root)
      const card = req.method === 'GET' ? CARD_PAGE_PATH.exec(relative) : null
      return (card && cardPage(sb, card[1] as string)) || routeNotFound()
    }

    return {
      machinery: sb,
      control: (req, path, root) => control.handle(req, path, root),
      faultReply,
      route: (req, relative, root) => ({
        faultPath: relative.startsWith('/1/') && !PAGES.has(relative) ? relative : undefined,
        answer: () => answer(req, relative, root),
      }),
      close: () => sb.close(),
    }
  })
}
