/**
 * Which account a request is for. Real Zendesk is `https://{subdomain}.zendesk.com/...`; locally
 * `*.localhost` rarely resolves, so the account is the first path segment after the prefix
 * (`{prefix}/{subdomain}/api/v2/...`). A Host header `{subdomain}.zendesk.com` or
 * `{subdomain}.localhost` also selects the account, with bare `{prefix}/api/v2/...` paths.
 * `{prefix}/_control/...` is the sandbox's own control API.
 */

export type Address =
  | { kind: 'control'; path: string }
  | {
      kind: 'account'
      subdomain: string
      /** path after the account, e.g. `/api/v2/tickets.json` */ rest: string
      base: string
    }
  | { kind: 'none' }

const HOST_ACCOUNT = /^([a-z0-9][a-z0-9-]*)\.(zendesk\.com|localhost)$/
const ACCOUNT_LEVEL_SEGMENTS = new Set(['api', 'oauth'])

function hostname(host: string): string {
  return host.replace(/:\d+$/, '').toLowerCase()
}

/** `relativePath` is the path after the prefix, percent-decoded, starting with `/`. */
export function resolveAddress(relativePath: string, host: string, origin: string, prefix: string): Address {
  const segments = relativePath.split('/').filter((s) => s !== '')
  const first = segments[0]
  if (first === undefined) return { kind: 'none' }
  if (first === '_control') return { kind: 'control', path: `/${segments.slice(1).join('/')}` }
  const fromHost = HOST_ACCOUNT.exec(hostname(host))
  if (fromHost && ACCOUNT_LEVEL_SEGMENTS.has(first)) {
    return {
      kind: 'account',
      subdomain: fromHost[1] as string,
      rest: `/${segments.join('/')}`,
      base: `${origin}${prefix}`,
    }
  }
  const subdomain = first.toLowerCase()
  return {
    kind: 'account',
    subdomain,
    rest: `/${segments.slice(1).join('/')}`,
    base: `${origin}${prefix}/${first}`,
  }
}

/** `.json` is optional on every API path, as on Zendesk; trailing slashes are ignored. */
export function apiPath(rest: string): string {
  return rest.replace(/\/+$/, '').replace(/\.json$/, '') || '/'
}
