import { createHmac } from 'node:crypto'

/**
 * OAuth 1.0a HMAC-SHA1 signatures (RFC 5849 §3.4), written against node:crypto only.
 * Trello signs with the app secret as consumer secret and the OAuth token secret ('' for
 * tokens that did not come from OAuthGetAccessToken) (sources: Trello authentication, T-ARCH).
 */

export type ParamPair = [name: string, value: string]

/** RFC 3986 §2.1 percent-encoding as RFC 5849 §3.6 requires: only ALPHA DIGIT - . _ ~ stay. */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

/** RFC 5849 §3.4.1.2: lower-case scheme and host, default port dropped, no query or fragment. */
export function baseStringUri(url: string): string {
  const parsed = new URL(url)
  const scheme = parsed.protocol.toLowerCase()
  const defaultPort =
    (scheme === 'http:' && parsed.port === '80') ||
    (scheme === 'https:' && parsed.port === '443') ||
    parsed.port === ''
  const host = parsed.hostname.toLowerCase() + (defaultPort ? '' : `:${parsed.port}`)
  return `${scheme}//${host}${parsed.pathname}`
}

/** RFC 5849 §3.4.1.3.2: encode every name and value, sort by name then value, join. */
export function normalizeParameters(pairs: ParamPair[]): string {
  return pairs
    .map(([name, value]) => [percentEncode(name), percentEncode(value)] as const)
    .sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
}

/** RFC 5849 §3.4.1.1. `pairs` must already exclude `oauth_signature` and `realm`. */
export function signatureBaseString(method: string, url: string, pairs: ParamPair[]): string {
  return [
    method.toUpperCase(),
    percentEncode(baseStringUri(url)),
    percentEncode(normalizeParameters(pairs)),
  ].join('&')
}

/** RFC 5849 §3.4.2: base64 HMAC-SHA1 keyed by `encode(consumerSecret)&encode(tokenSecret)`. */
export function hmacSha1Signature(baseString: string, consumerSecret: string, tokenSecret = ''): string {
  const key = `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret)}`
  return createHmac('sha1', key).update(baseString).digest('base64')
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/**
 * Parses `Authorization: OAuth name="value", ...` (RFC 5849 §3.5.1) into decoded values.
 * Returns undefined for any other scheme.
 */
export function parseOAuthHeader(value: string | undefined): Record<string, string> | undefined {
  if (!value || !/^oauth\s/i.test(value.trim())) return undefined
  const params: Record<string, string> = {}
  for (const match of value
    .trim()
    .slice(5)
    .matchAll(/([A-Za-z0-9_.~%-]+)\s*=\s*(?:"([^"]*)"|([^,\s]*))/g)) {
    params[decode(match[1] as string)] = decode(match[2] ?? match[3] ?? '')
  }
  return params
}

/** Builds an `Authorization: OAuth ...` header value from already-signed parameters. */
export function oauthHeader(params: Record<string, string>): string {
  return `OAuth ${Object.entries(params)
    .map(([name, value]) => `${percentEncode(name)}="${percentEncode(value)}"`)
    .join(', ')}`
}

export interface SignInput {
  method: string
  /** Full URL, query included: its query parameters are signed too. */
  url: string
  consumerKey: string
  consumerSecret: string
  token?: string
  tokenSecret?: string
  /** Extra oauth_* parameters (oauth_callback, oauth_verifier). */
  oauth?: Record<string, string>
  /** Form body parameters (application/x-www-form-urlencoded), which are signed too. */
  form?: Record<string, string>
  nonce: string
  timestamp: number
}

/** Client side: the oauth_* parameters of a signed request, signature included. */
export function signRequest(input: SignInput): Record<string, string> {
  const oauth: Record<string, string> = {
    oauth_consumer_key: input.consumerKey,
    oauth_nonce: input.nonce,
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(input.timestamp),
    oauth_version: '1.0',
    ...(input.token !== undefined ? { oauth_token: input.token } : {}),
    ...input.oauth,
  }
  const query = [...new URL(input.url).searchParams] as ParamPair[]
  const pairs: ParamPair[] = [...query, ...Object.entries(oauth), ...Object.entries(input.form ?? {})]
  const base = signatureBaseString(input.method, input.url, pairs)
  return { ...oauth, oauth_signature: hmacSha1Signature(base, input.consumerSecret, input.tokenSecret ?? '') }
}
