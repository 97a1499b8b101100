import type { AuthFailure, UpstreamProblem } from '../../core/platforms/types.ts'

export const TROUBLESHOOTING_RULES = [
  'Sign in to Vercel in the pop-up and allow access to projects and deployments. If no pop-up opened, allow pop-ups for this site and try again.',
  'Pick the account to connect in the pop-up: your personal account or one team. Each team is its own integration; connect again to add another.',
  "Disconnect and reconnect the integration, for a fresh authorization (removing the integration in Vercel's settings revokes its token).",
]
// Rule 0 (signing in) is for reading, not diagnosis: pressing Deny is answered on its own.
const SCOPE = 1
const RECONNECT = 2

export function diagnose(failure: AuthFailure): number[] {
  if (failure.status === 403) return [SCOPE, RECONNECT]
  if (failure.error === 'invalid_grant' || failure.status === 401) return [RECONNECT]
  return []
}

/**
 * Vercel's envelope is `{error: {code, message}}` (docs/platforms/vercel.md, "Facts"). Validation messages quote the
 * offending field in backticks ("`target` should be string"), which lets us name it.
 */
export function describeError(status: number, body: unknown): UpstreamProblem {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error
  const code = typeof error?.code === 'string' ? error.code : undefined
  const message =
    typeof error?.message === 'string'
      ? error.message
      : typeof body === 'string' && body
        ? body
        : `HTTP ${status}`
  const field = /`([A-Za-z0-9_.[\]]+)`/.exec(message)?.[1]
  return {
    message: code ? `${code}: ${message}` : message,
    fieldErrors: status === 400 && field ? [{ field, message }] : undefined,
  }
}
