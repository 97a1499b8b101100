// The one error vocabulary. Every failure that reaches a caller is an AppError with a stable `code`;
// the HTTP edge renders it as application/problem+json, the CLI as a message, MCP as a tool error.

export const ERROR_CODES = [
  'invalid_input',
  'unauthenticated',
  'auth_error',
  'forbidden',
  'not_found',
  'conflict',
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
  status?: number
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
    return this.extras.status ?? statusOf(this.code)
  }
}

export function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'invalid_input': return 400
    case 'unauthenticated': return 401
    case 'auth_error': return 401
    case 'forbidden': return 403
    case 'not_found': return 404
    case 'conflict': return 409
    case 'plan_required': return 402
    // The request is sound but this deployment lacks the configuration it needs (a platform's client).
    case 'not_configured': return 409
    case 'rate_limited': return 429
    case 'upstream_error': return 502
    case 'internal': return 500
    default: return assertNever(code)
  }
}

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${String(value)}`)
}

export const invalidInput = (errors: FieldError[]): AppError =>
  new AppError('invalid_input', errors.map((e) => `${e.field}: ${e.message}`).join('; '), { errors })

export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`)
