import { createHmac } from 'node:crypto'
import OAuth from 'oauth-1.0a'

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

/** An HMAC-SHA1 signed `Authorization: OAuth …` header for one request. */
export function oauth1Authorization(method: string, url: string, credentials: OAuth1Credentials, options: SignOptions = {}): string {
  const oauth = new OAuth({
    consumer: { key: credentials.consumerKey, secret: credentials.consumerSecret },
    signature_method: 'HMAC-SHA1',
    hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
  })
  if (options.nonce !== undefined) oauth.getNonce = () => options.nonce!
  if (options.timestamp !== undefined) oauth.getTimeStamp = () => options.timestamp!
  const token = credentials.token === undefined ? undefined : { key: credentials.token, secret: credentials.tokenSecret ?? '' }
  const data = { ...options.form, ...options.extra }
  const signed = oauth.authorize({ url, method, data }, token)
  // Body parameters are signed but travel in the body, not in the header.
  const protocolOnly = Object.fromEntries(Object.entries(signed).filter(([k]) => k.startsWith('oauth_'))) as OAuth.Authorization
  return oauth.toHeader(protocolOnly).Authorization
}
