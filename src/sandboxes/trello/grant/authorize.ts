import { invalidKey } from '../errors.ts'
import { htmlResponse, redirectResponse, textResponse } from '../http.ts'
import type { Member } from '../model.ts'
import { originAllowed } from '../origins.ts'
import type { TrelloSandbox } from '../sandbox.ts'
import { mintToken, parseExpiration, parseScopes } from '../tokens.ts'
import type { Grant, GrantCheck, GrantFlow } from './flow.ts'
import { deniedPage, postMessagePage, tokenPage, type HiddenFields } from './pages.ts'

/**
 * `GET /1/authorize` (sources: Trello authentication, T-ARCH authorize.html, T-AUTH): `key`, `name`, `scope`
 * (read,write,account; default read), `expiration` (1hour, 1day, 30days, never; default
 * 30days), `response_type=token`, `return_url`, `callback_method` (postMessage or fragment).
 *
 * After "Allow":
 *   - `return_url` + fragment → 302 `{return_url}#token={token}`;
 *   - `return_url` + postMessage → a page calling `window.opener.postMessage(token, origin)`;
 *   - no `return_url` → a page showing the token in `<pre id="token">`.
 * After "Deny": 302 `{return_url}#error=access_denied` (fragment), else a page saying so.
 * A `return_url` outside the app's allowed origins answers `Invalid return_url` [CAP trelloR#29];
 * with a `return_url` and no `callback_method`, fragment is used [UNV].
 */
const ARGUMENTS = [
  'key',
  'name',
  'scope',
  'expiration',
  'response_type',
  'return_url',
  'callback_method',
] as const

export function authorizeFlow(sb: TrelloSandbox, action: string): GrantFlow {
  const resolve = (values: Record<string, string>): GrantCheck => {
    const fields: HiddenFields = {}
    for (const name of ARGUMENTS)
      if (values[name] !== undefined && values[name] !== '') fields[name] = values[name] as string
    const app = fields.key ? sb.store.apps.get(fields.key) : undefined
    if (!app) return { ok: false, response: invalidKey() }
    if (fields.response_type !== undefined && fields.response_type !== 'token')
      return { ok: false, response: textResponse(400, 'invalid response_type') }
    const scopes = parseScopes(fields.scope)
    if (!scopes) return { ok: false, response: textResponse(400, 'invalid scope') }
    const expiration = parseExpiration(fields.expiration, '30days')
    if (!expiration) return { ok: false, response: textResponse(400, 'invalid expiration') }
    if (fields.return_url !== undefined && !originAllowed(app, fields.return_url))
      return { ok: false, response: textResponse(400, 'Invalid return_url') }
    const method = fields.callback_method
    if (method !== undefined && method !== 'postMessage' && method !== 'fragment')
      return { ok: false, response: textResponse(400, 'invalid callback_method') }
    return { ok: true, grant: { app, appName: fields.name ?? app.name, scopes, expiration, fields } }
  }

  const complete = (grant: Grant, member: Member, decision: 'allow' | 'deny') => {
    const returnUrl = grant.fields.return_url
    const method = grant.fields.callback_method ?? 'fragment'
    if (decision === 'deny') {
      if (returnUrl && method === 'fragment')
        return redirectResponse(withFragment(returnUrl, 'error=access_denied'))
      return htmlResponse(200, deniedPage(grant.appName))
    }
    const token = mintToken(sb, {
      app: grant.app,
      member,
      scopes: grant.scopes,
      expiration: grant.expiration,
      name: grant.appName,
    })
    if (!returnUrl) return htmlResponse(200, tokenPage(grant.appName, token.value))
    if (method === 'postMessage')
      return htmlResponse(200, postMessagePage(grant.appName, token.value, new URL(returnUrl).origin))
    return redirectResponse(withFragment(returnUrl, `token=${token.value}`))
  }

  return { action, resolve, complete }
}

function withFragment(url: string, fragment: string): string {
  const at = url.indexOf('#')
  return `${at < 0 ? url : url.slice(0, at)}#${fragment}`
}
