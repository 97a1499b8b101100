import { request } from 'undici'
import type { PlatformRuntime } from '../platforms/runtime.ts'
import type { OAuth1Facts } from '../platforms/types.ts'
import { oauth1Authorization } from './oauth1.ts'
import { OAuthError } from './token-endpoint.ts'

const OAUTH1_TIMEOUT_MS = 15_000

export interface TokenPair {
  token: string
  secret: string
}

export function oauth1Facts(runtime: PlatformRuntime): OAuth1Facts {
  const facts = runtime.definition.auth.interactive
  if (facts.kind !== 'oauth1') throw new Error(`${runtime.definition.id} does not use OAuth 1.0a`)
  return facts
}

/** Step 1 of RFC 5849 §2: a temporary credential, bound to our callback. */
export async function getRequestToken(
  runtime: PlatformRuntime,
  base: string,
  callback: string,
): Promise<TokenPair> {
  return tokenRequest(runtime, oauth1Facts(runtime).requestTokenUrl(base), undefined, {
    oauth_callback: callback,
  })
}

/** Step 3: trade the approved temporary credential and its verifier for token credentials. */
export async function getAccessToken(
  runtime: PlatformRuntime,
  base: string,
  requestToken: TokenPair,
  verifier: string,
): Promise<TokenPair> {
  return tokenRequest(runtime, oauth1Facts(runtime).accessTokenUrl(base), requestToken, {
    oauth_verifier: verifier,
  })
}

/** Asks for a request token with any consumer secret: the cheapest way to learn whether a value is an app secret. */
export async function consumerSecretWorks(
  url: string,
  consumerKey: string,
  consumerSecret: string,
): Promise<boolean> {
  try {
    await signedPost(url, { consumerKey, consumerSecret }, { oauth_callback: 'oob' })
    return true
  } catch {
    return false
  }
}

async function tokenRequest(
  runtime: PlatformRuntime,
  url: string,
  token: TokenPair | undefined,
  extra: Record<string, string>,
): Promise<TokenPair> {
  const body = await signedPost(
    url,
    {
      consumerKey: runtime.client.clientId,
      consumerSecret: runtime.client.clientSecret,
      token: token?.token,
      tokenSecret: token?.secret,
    },
    extra,
  )
  const token_ = body.get('oauth_token')
  const secret = body.get('oauth_token_secret')
  if (!token_ || secret === null)
    throw new OAuthError(
      'invalid_token_response',
      200,
      'the platform answered without oauth_token and oauth_token_secret',
    )
  return { token: token_, secret }
}

async function signedPost(
  url: string,
  credentials: Parameters<typeof oauth1Authorization>[2],
  extra: Record<string, string>,
): Promise<URLSearchParams> {
  const res = await request(url, {
    method: 'POST',
    headers: { authorization: oauth1Authorization('POST', url, credentials, { extra }) },
    headersTimeout: OAUTH1_TIMEOUT_MS,
    bodyTimeout: OAUTH1_TIMEOUT_MS,
  })
  const text = await res.body.text()
  if (res.statusCode !== 200) {
    // OAuth 1.0a providers answer errors in plain text; keep it short and never echo secrets.
    throw new OAuthError(
      res.statusCode === 401 ? 'invalid_client' : `http_${res.statusCode}`,
      res.statusCode,
      text.slice(0, 200),
    )
  }
  return new URLSearchParams(text)
}
