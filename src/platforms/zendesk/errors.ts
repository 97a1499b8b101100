import type { AuthFailure, UpstreamProblem } from '../../core/platforms/types.ts'

export const TROUBLESHOOTING_RULES = [
  'The subdomain holds only the part before the domain suffix: for https://acme.zendesk.com enter acme.',
  'The authorizing account needs Admin or Agent permissions; end users cannot use the agent APIs.',
  'Disconnect and reconnect the integration, for a fresh OAuth flow.',
]
const SUBDOMAIN = 0
const ROLE = 1
const RECONNECT = 2

export function diagnose(failure: AuthFailure): number[] {
  if (failure.role === 'end-user' || failure.status === 403) return [ROLE]
  if (failure.status === 404 || (failure.stage === 'token' && failure.status === undefined))
    return [SUBDOMAIN]
  if (failure.error === 'invalid_grant' || failure.status === 401) return [RECONNECT]
  return []
}

/** Zendesk's error bodies (docs/platforms/zendesk.md, "Facts"): {error, description, details} or the OAuth pair. */
export function describeError(status: number, body: unknown): UpstreamProblem {
  if (typeof body === 'string') return { message: body.trim() || `HTTP ${status}` }
  const b = (body ?? {}) as Record<string, any>
  const error =
    typeof b.error === 'string' ? b.error : typeof b.error?.title === 'string' ? b.error.title : undefined
  const description =
    typeof b.description === 'string'
      ? b.description
      : typeof b.error_description === 'string'
        ? b.error_description
        : typeof b.error?.message === 'string'
          ? b.error.message
          : undefined
  const fieldErrors: Array<{ field: string; message: string }> = []
  if (b.details && typeof b.details === 'object') {
    for (const [field, problems] of Object.entries(b.details as Record<string, unknown>)) {
      for (const problem of Array.isArray(problems) ? problems : [problems]) {
        const text = typeof problem === 'string' ? problem : (problem as any)?.description
        if (typeof text === 'string') fieldErrors.push({ field, message: text })
      }
    }
  }
  // Newer endpoints answer {errors: [{code, title, detail}]} instead.
  if (Array.isArray(b.errors)) {
    for (const e of b.errors) {
      const text = [e?.title, e?.detail].filter((t) => typeof t === 'string').join(': ')
      if (text)
        fieldErrors.push({
          field: typeof e?.source?.pointer === 'string' ? e.source.pointer : 'input',
          message: text,
        })
    }
  }
  const message = [error, description].filter(Boolean).join(': ') || `HTTP ${status}`
  return {
    message: fieldErrors.length ? `${message} (${fieldErrors.map((f) => f.message).join('; ')})` : message,
    fieldErrors,
  }
}
