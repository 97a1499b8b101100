import { invalidNonce, invalidSignature, invalidTimestamp } from '../errors.ts'
import { isFormBody, type IncomingRequest, type SandboxResponse } from '../http.ts'
import type { NonceCache } from './nonces.ts'
import { sameSecret } from '../../kit/same-secret.ts'
import { hmacSha1Signature, signatureBaseString, type ParamPair } from './signature.ts'

/**
 * Server side of RFC 5849 §3.2: rebuilds the signature base string from the request as
 * received — method, `{origin}{path}` as the client addressed it, and every parameter from the
 * query, a form-encoded body and the OAuth parameters (header or not) — then compares.
 */
export interface SignedRequest {
  /** The oauth_* parameters, wherever they came from (header, query or form body). */
  oauth: Record<string, string>
  /** True when they came from the Authorization header (they are then not in query/body). */
  fromHeader: boolean
}

export function requestPairs(req: IncomingRequest, signed: SignedRequest): ParamPair[] {
  const pairs: ParamPair[] = [...req.query].filter(([name]) => name !== 'oauth_signature') as ParamPair[]
  if (req.rawBody && isFormBody(req)) {
    for (const pair of new URLSearchParams(req.rawBody))
      if (pair[0] !== 'oauth_signature') pairs.push(pair as ParamPair)
  }
  if (signed.fromHeader) {
    for (const [name, value] of Object.entries(signed.oauth))
      if (name !== 'oauth_signature' && name !== 'realm') pairs.push([name, value])
  }
  return pairs
}

/** Returns undefined when the signature, timestamp and nonce are good, else Trello-style 401. */
export function verifySignature(
  req: IncomingRequest,
  signed: SignedRequest,
  secrets: { consumer: string; token: string },
  nonces: NonceCache,
  now: number,
): SandboxResponse | undefined {
  const { oauth } = signed
  if ((oauth.oauth_signature_method ?? '').toUpperCase() !== 'HMAC-SHA1') return invalidSignature()
  const base = signatureBaseString(req.method, `${req.origin}${req.path}`, requestPairs(req, signed))
  const expected = hmacSha1Signature(base, secrets.consumer, secrets.token)
  if (!sameSecret(expected, oauth.oauth_signature ?? '')) return invalidSignature()
  // The nonce is spent only by a correctly signed request, so forged requests cannot burn nonces.
  const check = nonces.check(oauth.oauth_consumer_key ?? '', oauth.oauth_timestamp, oauth.oauth_nonce, now)
  if (check === 'stale') return invalidTimestamp()
  if (check === 'reused') return invalidNonce()
  return undefined
}
