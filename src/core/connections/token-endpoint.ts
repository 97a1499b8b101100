import { request } from 'undici'
import { z } from 'zod'
import type { PlatformRuntime } from '../platforms/runtime.ts'

/** An OAuth 2.0 token set as Switchyard stores it (sealed) per integration. */
export interface TokenSet {
  access_token: string
  refresh_token?: string
  scope?: string
  /** Epoch ms; absent for long-lived tokens. */
  expires_at?: number
  issued_at: number
  /** Other values the token response carried (Vercel: team_id, installation_id, user_id). */
  extra?: Record<string, string>
}

const STANDARD_FIELDS = new Set([
  'access_token',
  'refresh_token',
  'scope',
  'expires_in',
  'token_type',
  'refresh_token_expires_in',
])

/** An RFC 6749 §5.2 error from the token endpoint, such as invalid_grant. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly status: number,
    readonly description?: string,
  ) {
    super(description ? `${error}: ${description}` : error)
    this.name = 'OAuthError'
  }
}

const TokenResponse = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).nullish(),
  scope: z.string().nullish(),
  expires_in: z.coerce.number().positive().nullish(),
})

const TOKEN_TIMEOUT_MS = 15_000

export async function requestToken(
  runtime: PlatformRuntime,
  fields: Record<string, string>,
  params: Record<string, string>,
): Promise<TokenSet> {
  const oauth2 = runtime.definition.auth.interactive
  if (oauth2.kind !== 'oauth2') throw new Error(`${runtime.definition.id} does not use OAuth 2.0`)
  const url = oauth2.tokenUrl(runtime.baseUrl(fields))
  const payload: Record<string, string> = {
    ...params,
    client_id: runtime.client.clientId,
    client_secret: runtime.client.clientSecret,
    ...Object.fromEntries(Object.entries(oauth2.extraTokenParams ?? {}).map(([k, v]) => [k, String(v)])),
  }
  const json = oauth2.tokenRequestBody === 'json'
  // An overall deadline too, not only idle timeouts: a refresh runs under a lease that lapses (LEASE_MS).
  const signal = AbortSignal.timeout(TOKEN_TIMEOUT_MS)
  let res: Awaited<ReturnType<typeof request>>
  let text: string
  try {
    res = await request(url, {
      method: 'POST',
      headers: {
        'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: json ? JSON.stringify(withNumbers(payload)) : new URLSearchParams(payload).toString(),
      headersTimeout: TOKEN_TIMEOUT_MS,
      bodyTimeout: TOKEN_TIMEOUT_MS,
      signal,
    })
    text = await res.body.text()
  } catch (err) {
    if (signal.aborted)
      throw new OAuthError(
        'timeout',
        0,
        `the token endpoint did not answer within ${TOKEN_TIMEOUT_MS / 1000} s`,
      )
    throw err
  }
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  // Zendesk documents 201 for a successful exchange (vendor OAS, oauth.yml); RFC 6749 says 200.
  if (res.statusCode !== 200 && res.statusCode !== 201) {
    throw new OAuthError(
      typeof body?.error === 'string' ? body.error : `http_${res.statusCode}`,
      res.statusCode,
      typeof body?.error_description === 'string' ? body.error_description : undefined,
    )
  }
  const parsed = TokenResponse.safeParse(body)
  if (!parsed.success)
    throw new OAuthError(
      'invalid_token_response',
      res.statusCode,
      'the token endpoint answered without an access token',
    )
  const now = Date.now()
  const extra = Object.fromEntries(
    Object.entries(body as Record<string, unknown>)
      .filter(([k, v]) => !STANDARD_FIELDS.has(k) && (typeof v === 'string' || typeof v === 'number'))
      .map(([k, v]) => [k, String(v)]),
  )
  return {
    extra: Object.keys(extra).length ? extra : undefined,
    access_token: parsed.data.access_token,
    refresh_token: parsed.data.refresh_token ?? undefined,
    scope: parsed.data.scope ?? undefined,
    expires_at: parsed.data.expires_in ? now + parsed.data.expires_in * 1000 : undefined,
    issued_at: now,
  }
}

/** JSON token bodies carry numeric parameters (expires_in) as numbers, as the vendor examples do. */
function withNumbers(payload: Record<string, string>): Record<string, string | number> {
  return Object.fromEntries(
    Object.entries(payload).map(([k, v]) => [k, /^\d+$/.test(v) && k.endsWith('expires_in') ? Number(v) : v]),
  )
}
