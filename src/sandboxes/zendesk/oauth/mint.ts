import { randomToken } from '../ids.ts'
import type { AccessToken, RefreshToken } from '../model.ts'
import type { SandboxStore } from '../state.ts'
import { MS_PER_SECOND } from '../time.ts'

/**
 * Token lifetimes from oauth.yml `/oauth/tokens`: `expires_in` must be >300 and <172,800 s and
 * defaults to null (a token that never expires); `refresh_token_expires_in` must be <7,776,000 s
 * and defaults to 2,592,000 s (30 days).
 */
export const MIN_EXPIRES_IN_S = 300
export const MAX_EXPIRES_IN_S = 172_800
/**
 * The OAS text says the refresh lifetime "must be more than 604,800 seconds", yet its own
 * example sends exactly 604800; the sandbox accepts 604800 and up.
 */
export const MIN_REFRESH_EXPIRES_IN_S = 604_800
export const MAX_REFRESH_EXPIRES_IN_S = 7_776_000
export const DEFAULT_REFRESH_EXPIRES_IN_S = 2_592_000

export interface MintRequest {
  subdomain: string
  userId: number
  clientId: string
  scopes: string[]
  /** null: long-lived access token without a refresh token. */
  expiresInS: number | null
  refreshExpiresInS: number
}

export interface Minted {
  access: AccessToken
  refresh: RefreshToken | null
}

export function mintTokens(store: SandboxStore, request: MintRequest, now: number): Minted {
  const access: AccessToken = {
    token: randomToken(32),
    subdomain: request.subdomain,
    userId: request.userId,
    clientId: request.clientId,
    scopes: [...request.scopes],
    expiresAt: request.expiresInS === null ? null : now + request.expiresInS * MS_PER_SECOND,
    revoked: false,
    createdAt: now,
  }
  store.accessTokens.set(access.token, access)
  if (request.expiresInS === null) return { access, refresh: null }
  const refresh: RefreshToken = {
    token: randomToken(32),
    subdomain: request.subdomain,
    userId: request.userId,
    clientId: request.clientId,
    scopes: [...request.scopes],
    accessTokenLifetimeS: request.expiresInS,
    expiresAt: now + request.refreshExpiresInS * MS_PER_SECOND,
    used: false,
    revoked: false,
  }
  store.refreshTokens.set(refresh.token, refresh)
  return { access, refresh }
}

/** Body of a successful grant (201 per oauth.yml `CreateTokenForGrantType`). */
export function tokenResponseBody(minted: Minted, refreshExpiresInS: number): Record<string, unknown> {
  const body: Record<string, unknown> = {
    access_token: minted.access.token,
    token_type: 'bearer',
    scope: minted.access.scopes.join(' '),
    expires_in: minted.refresh ? minted.refresh.accessTokenLifetimeS : null,
  }
  if (minted.refresh) {
    body.refresh_token = minted.refresh.token
    body.refresh_token_expires_in = refreshExpiresInS
  }
  return body
}

export type LifetimeCheck =
  { ok: true; expiresInS: number | null; refreshExpiresInS: number } | { ok: false; problem: string }

function seconds(raw: unknown): number | undefined | null {
  if (raw === undefined || raw === null || raw === '') return undefined
  const n = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : raw
  return typeof n === 'number' && Number.isInteger(n) ? n : null
}

export function checkLifetimes(
  rawExpiresIn: unknown,
  rawRefreshExpiresIn: unknown,
  fallbackExpiresInS: number | null = null,
): LifetimeCheck {
  const expiresIn = seconds(rawExpiresIn)
  const refreshExpiresIn = seconds(rawRefreshExpiresIn)
  if (expiresIn === null) return { ok: false, problem: 'expires_in must be an integer number of seconds' }
  if (refreshExpiresIn === null)
    return { ok: false, problem: 'refresh_token_expires_in must be an integer number of seconds' }
  const refresh = refreshExpiresIn ?? DEFAULT_REFRESH_EXPIRES_IN_S
  const access = expiresIn ?? fallbackExpiresInS
  if (access !== null && !(access > MIN_EXPIRES_IN_S && access < MAX_EXPIRES_IN_S && access < refresh)) {
    return {
      ok: false,
      problem: `expires_in must be more than ${MIN_EXPIRES_IN_S} and less than ${MAX_EXPIRES_IN_S} seconds, and less than refresh_token_expires_in`,
    }
  }
  if (refresh < MIN_REFRESH_EXPIRES_IN_S || refresh >= MAX_REFRESH_EXPIRES_IN_S) {
    return {
      ok: false,
      problem: `refresh_token_expires_in must be at least ${MIN_REFRESH_EXPIRES_IN_S} and less than ${MAX_REFRESH_EXPIRES_IN_S} seconds`,
    }
  }
  return { ok: true, expiresInS: access, refreshExpiresInS: refresh }
}
