// The one error vocabulary. Every failure that reaches a caller is an AppError with a stable `code`;
// the HTTP edge renders it as application/problem+json, the CLI as a message, MCP as a tool error.

// Each code has exactly one HTTP status (statusOf), so a caller can branch on either (docs/errors.md).
export const ERROR_CODES = [
  'invalid_input',
  'payload_too_large',
  'unsupported_media_type',
  'unauthenticated',
  'connect_failed',
  'reconnect_required',
  'platform_refused',
  'forbidden',
  'not_found',
  'conflict',
  'gone',
  'plan_required',
  'not_configured',
  'rate_limited',
  'upstream_error',
  'internal',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

export interface FieldError {
  field: string
  message: string
}

export interface AuthTroubleshooting {
  rules: string[]
  /** Indexes into `rules` of the ones that apply, when the failure tells us. */
  applies: number[]
}

interface ErrorExtras {
  errors?: FieldError[]
  troubleshooting?: AuthTroubleshooting
  retryAfterSeconds?: number
  requiredPlan?: string
  upstreamStatus?: number
  /** The platform's own words, for diagnosis; never shown beyond `message`. */
  upstreamMessage?: string
  /** The platform refused the credential itself (not just this request): the integration is broken. */
  credentialFailure?: boolean
  /** The integration a reconnect_required error is about, so a client can offer to reconnect it. */
  integrationId?: string
  cause?: unknown
}

export class AppError extends Error {
  readonly code: ErrorCode
  readonly extras: ErrorExtras

  constructor(code: ErrorCode, message: string, extras: ErrorExtras = {}) {
    super(message, extras.cause === undefined ? undefined : { cause: extras.cause })
    this.name = 'AppError'
    this.code = code
    this.extras = extras
  }

  get status(): number {
    return statusOf(this.code)
  }
}

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'invalid_input':
      return 400
    case 'payload_too_large':
      return 413
    case 'unsupported_media_type':
      return 415
    // Our caller is not signed in or sent no valid API key.
    case 'unauthenticated':
      return 401
    // Connecting an integration failed in a way the person can correct: the platform refused the
    // authorization or the pasted credentials, the wrong account answered, the attempt expired.
    case 'connect_failed':
      return 400
    // The integration can no longer act: it needs reconnection before any call.
    case 'reconnect_required':
      return 409
    // The caller is fine; the platform refused the integration's credentials for this request.
    case 'platform_refused':
      return 502
    case 'forbidden':
      return 403
    case 'not_found':
      return 404
    case 'conflict':
      return 409
    // A webhook address whose webhook was removed: the platform stops calling it (Trello deletes a webhook on 410).
    case 'gone':
      return 410
    case 'plan_required':
      return 402
    // The request is sound but this deployment lacks the configuration it needs (a platform's client).
    case 'not_configured':
      return 409
    case 'rate_limited':
      return 429
    case 'upstream_error':
      return 502
    case 'internal':
      return 500
    default:
      return assertNever(code)
  }
}

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${String(value)}`)
}

export const invalidInput = (errors: FieldError[]): AppError =>
  new AppError('invalid_input', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors })

export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`)
