import { createHmac, randomBytes } from 'node:crypto'

/**
 * OAuth 1.0a HMAC-SHA1 request signing, exactly as RFC 5849 §3.4 says. Written here because the
 * oauth-1.0a package signs percent-encoded parameter names wrongly (it decodes values but not names,
 * splits values at '=' and keeps '+' as a plus), so a query such as `?%C3%A9=1` or `?@x` got
 * "Invalid Signature" from Trello (docs/security.md).
 */

/** The parties to an OAuth 1.0a request (RFC 5849): the app (consumer) and, once granted, the token. */
export interface OAuth1Credentials {
  consumerKey: string
  consumerSecret: string
  token?: string
  /** Empty for tokens issued outside the three-legged flow. */
  tokenSecret?: string
}

export interface SignOptions {
  /** Form-encoded body parameters, which take part in the signature (RFC 5849 §3.4.1.3). */
  form?: Record<string, string>
  /** Protocol parameters of the flow itself: oauth_callback, oauth_verifier. */
  extra?: Record<string, string>
  /** Fixed values for test vectors; random and current otherwise. */
  nonce?: string
  timestamp?: number
}

export type ParamPair = [name: string, value: string]

/** An HMAC-SHA1 signed `Authorization: OAuth …` header for one request. */
export function oauth1Authorization(
  method: string,
  url: string,
  credentials: OAuth1Credentials,
  options: SignOptions = {},
): string {
  const protocol: Record<string, string> = {
    oauth_consumer_key: credentials.consumerKey,
    oauth_nonce: options.nonce ?? randomBytes(16).toString('hex'),
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(options.timestamp ?? Math.floor(Date.now() / 1000)),
    oauth_version: '1.0',
    ...(credentials.token === undefined ? {} : { oauth_token: credentials.token }),
    ...options.extra,
  }
  const base = signatureBaseString(method, url, [
    ...Object.entries(options.form ?? {}),
    ...Object.entries(protocol),
  ])
  const key = `${percentEncode(credentials.consumerSecret)}&${percentEncode(credentials.tokenSecret ?? '')}`
  const signature = createHmac('sha1', key).update(base).digest('base64')
  // Body parameters are signed but travel in the body, not in the header (§3.5.1).
  return `OAuth ${Object.entries({ ...protocol, oauth_signature: signature })
    .map(([name, value]) => `${percentEncode(name)}="${percentEncode(value)}"`)
    .join(', ')}`
}

/**
 * §3.4.1.1: method, base string URI and normalized parameters, each encoded and joined by '&'.
 * The query of `url` is signed with `pairs` (body and protocol parameters, no oauth_signature).
 */
export function signatureBaseString(method: string, url: string, pairs: ParamPair[]): string {
  const parsed = new URL(url)
  // §3.4.1.3.1: the query is parsed as application/x-www-form-urlencoded, names and values decoded.
  const query = [...new URLSearchParams(parsed.search)] as ParamPair[]
  return [
    method.toUpperCase(),
    percentEncode(baseStringUri(parsed)),
    percentEncode(normalizeParameters([...query, ...pairs])),
  ].join('&')
}

/** §3.4.1.3.2: encode every name and value, sort by name then value (byte order), join. */
export function normalizeParameters(pairs: ParamPair[]): string {
  return pairs
    .map(([name, value]) => [percentEncode(name), percentEncode(value)] as const)
    .sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
}

/** §3.4.1.2: lower-case scheme and host, default port left out, no query or fragment. */
function baseStringUri(url: URL): string {
  const defaultPort =
    url.port === '' ||
    (url.protocol === 'http:' && url.port === '80') ||
    (url.protocol === 'https:' && url.port === '443')
  return `${url.protocol}//${url.hostname.toLowerCase()}${defaultPort ? '' : `:${url.port}`}${url.pathname}`
}

/** §3.6: UTF-8, then every octet outside the RFC 3986 unreserved set (ALPHA DIGIT - . _ ~) as %XX. */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}
