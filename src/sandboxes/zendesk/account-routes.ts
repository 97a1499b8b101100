import { apiPath } from './addressing.ts'
import { agentTicketPage } from './agent-page.ts'
import { handleApiRequest } from './api.ts'
import { invalidEndpoint } from './errors.ts'
import type { IncomingRequest, SandboxResponse } from './http.ts'
import type { Account } from './model.ts'
import { decide, showAuthorize, signIn } from './oauth/authorize.ts'
import { handleTokenRequest } from './oauth/token-endpoint.ts'
import { rateLimitHeaders, tooManyRequests } from './rate-limit.ts'
import type { ZendeskSandbox } from './sandbox.ts'
import { serveAttachmentContent } from './uploads.ts'

/** Everything under one account's base URL: the REST API and the OAuth endpoints. */
export async function handleAccountRequest(
  sandbox: ZendeskSandbox,
  account: Account,
  req: IncomingRequest,
  rest: string,
  base: string,
): Promise<SandboxResponse> {
  const path = apiPath(rest)
  const { store } = sandbox
  const now = sandbox.now()
  if (path.startsWith('/api/')) {
    // The account-wide limit counts every API request, whatever its outcome (Z-RL).
    const decision = sandbox.rateLimiter.take(account, now)
    if (!decision.allowed) return tooManyRequests(decision.limit, decision.resetSeconds)
    const response = await handleApiRequest(sandbox, account, req, path, base)
    return { ...response, headers: { ...rateLimitHeaders(decision), ...response.headers } }
  }
  if (path === '/oauth/authorizations/new' && req.method === 'GET')
    return showAuthorize(store, account, req, base, now)
  if (path === '/oauth/authorizations/new' && req.method === 'POST')
    return signIn(store, account, req, base, now)
  if (path === '/oauth/authorizations' && req.method === 'POST') return decide(store, account, req, base, now)
  if (path === '/oauth/tokens' && req.method === 'POST') return handleTokenRequest(store, account, req, now)
  const agentTicket = /^\/agent\/tickets\/(\d{1,15})$/.exec(path)
  if (agentTicket && req.method === 'GET') return agentTicketPage(account, Number(agentTicket[1]))
  // An attachment's content_url: the token in the URL is the credential, as on Zendesk.
  const content = /^\/attachments\/token\/([A-Za-z0-9]+)\/?$/.exec(path)
  if (content && req.method === 'GET')
    return serveAttachmentContent(account, content[1] as string) ?? invalidEndpoint()
  return invalidEndpoint()
}
