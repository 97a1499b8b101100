import type { AuthFailure, UpstreamProblem } from '../../core/platforms/types.ts'

export const TROUBLESHOOTING_RULES = [
  'With Connect (OAuth), sign in to Trello and press Allow: the app asks to read and write your boards, lists and cards.',
  "With an API key plus token: the key is the one of your app in the Trello developer admin area (Power-Up admin, app key page); the token comes from the authorization page built for that key. Do not paste the app's secret as the token.",
  'A token created with an expiration stops working when it expires: create one with expiration=never, or reconnect.',
  'Disconnect and reconnect the integration, for a fresh authorization.',
]
const OAUTH = 0
const PASTED = 1
const EXPIRED = 2
const RECONNECT = 3

/** The error code for a pasted app secret where the token belongs. */
export const APP_SECRET_AS_TOKEN = 'app_secret_as_token'

export function diagnose(failure: AuthFailure): number[] {
  if (failure.error === APP_SECRET_AS_TOKEN) return [PASTED]
  if (failure.error === 'invalid key' || failure.error === 'invalid token')
    return [PASTED, EXPIRED, RECONNECT]
  if (failure.error?.includes('unauthorized permission requested')) return [OAUTH, RECONNECT]
  if (failure.status === 401 || failure.error === 'invalid_grant') return [EXPIRED, RECONNECT]
  return []
}

/** Only these refusals mean the token or key is dead; others (no access to this board) are per request. */
const CREDENTIAL_FAILURES = new Set(['invalid token', 'invalid key', 'expired token'])

export function isCredentialFailure(status: number, problem: UpstreamProblem): boolean {
  return status === 401 && CREDENTIAL_FAILURES.has(problem.message)
}

/**
 * Trello answers errors in plain text (`invalid id`, `invalid token`, `unauthorized permission
 * requested`), and rate limits in JSON `{error, message}` (docs/platforms/trello.md, "Facts").
 */
export function describeError(status: number, body: unknown): UpstreamProblem {
  if (typeof body === 'string') {
    const text = body.trim() || `HTTP ${status}`
    if (text === 'invalid id')
      return {
        message: text,
        fieldErrors: [{ field: 'id', message: 'is not a Trello id (24 hexadecimal characters)' }],
      }
    // "invalid value for idList" and the like name the parameter Trello refused.
    const invalidValue = /^invalid value for (\w+)$/.exec(text)
    if (invalidValue)
      return {
        message: text,
        fieldErrors: [{ field: invalidValue[1], message: 'was refused by Trello as invalid' }],
      }
    return { message: text }
  }
  const b = (body ?? {}) as Record<string, unknown>
  const parts = [b.error, b.message].filter((p): p is string => typeof p === 'string')
  return { message: parts.join(': ') || `HTTP ${status}` }
}
