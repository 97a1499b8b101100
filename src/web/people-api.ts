// Signing in like a person (REST: /v1/session, /v1/me/…, /v1/password-links/…; docs/security.md, "People").
import { request } from './api.ts'
import type { Answer, Schema } from './api-shapes.ts'

export type SessionListing = Schema<'Session'>
export type SignInMethod = SessionListing['method']
export type PasswordLink = Schema<'PasswordLink'>
export type LinkDetails = Answer<'/v1/password-links/inspect', 'post'>

const quiet = { notifyUnauthenticated: false }
const enc = encodeURIComponent

export const peopleApi = {
  signInWithPassword: (email: string, password: string) =>
    request<void>('POST', '/v1/session', { email, password }, quiet),
  sessions: () => request<{ sessions: SessionListing[] }>('GET', '/v1/me/sessions').then((r) => r.sessions),
  endSession: (id: string) => request<void>('DELETE', `/v1/me/sessions/${enc(id)}`),
  signOutEverywhere: () => request<{ ended: number }>('DELETE', '/v1/me/sessions'),
  changePassword: (newPassword: string, currentPassword?: string) =>
    request<void>('PUT', '/v1/me/password', {
      new_password: newPassword,
      ...(currentPassword !== undefined ? { current_password: currentPassword } : {}),
    }),
  inspectLink: (token: string) =>
    request<LinkDetails>('POST', '/v1/password-links/inspect', { token }, quiet),
  acceptLink: (token: string, password: string) =>
    request<void>('POST', '/v1/password-links/accept', { token, password }, quiet),
  sso: () => request<{ enabled: boolean; name: string | null }>('GET', '/v1/sso', undefined, quiet),
  passwordLink: (userId: string) => request<PasswordLink>('POST', `/v1/users/${enc(userId)}/password-link`),
}

/** Where the browser goes to sign in through the identity provider, returning to `next` (a path of this site). */
export const ssoStartUrl = (next: string) => `/v1/sso/start?${new URLSearchParams({ next })}`

/** The token in a link's fragment (`/welcome#token=…`): never sent to a server, so never logged. */
export function linkToken(hash: string): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token')
  return token && /^[A-Za-z0-9_-]{43}$/.test(token) ? token : null
}

/** A browser's user agent in a few words a person recognises ("Chrome on Linux"). */
export function describeBrowser(userAgent: string): string {
  if (!userAgent) return 'Unknown browser'
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : /^curl\//.test(userAgent)
            ? 'curl'
            : userAgent.split(/[ /]/)[0]
  const os = /Android/.test(userAgent)
    ? 'Android'
    : /iPhone|iPad/.test(userAgent)
      ? 'iOS'
      : /Windows/.test(userAgent)
        ? 'Windows'
        : /Mac OS X/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : ''
  return os ? `${browser} on ${os}` : browser
}
