import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { AppError, statusOf, type ErrorCode } from '../core/errors.ts'

const TITLES: Record<ErrorCode, string> = {
  invalid_input: 'Invalid input',
  unauthenticated: 'Authentication required',
  auth_error: 'The platform refused the authorization',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  conflict: 'Conflict',
  plan_required: 'A higher plan is required',
  not_configured: 'Not configured on this Switchyard',
  rate_limited: 'Rate limited',
  upstream_error: 'The platform failed',
  internal: 'Internal error',
}

/** The problem+json body for an error: the one shape every REST error takes (RFC 9457). */
export function problemBody(err: AppError) {
  const { extras } = err
  return {
    type: `https://switchyard.dev/problems/${err.code}`,
    title: TITLES[err.code],
    status: err.status,
    code: err.code,
    detail: err.message,
    ...(extras.errors && { errors: extras.errors }),
    ...(extras.troubleshooting && { troubleshooting: extras.troubleshooting.rules, applies: extras.troubleshooting.applies }),
    ...(extras.retryAfterSeconds !== undefined && { retry_after: extras.retryAfterSeconds }),
    ...(extras.requiredPlan && { required_plan: extras.requiredPlan }),
    ...(extras.upstreamStatus !== undefined && { upstream_status: extras.upstreamStatus }),
  }
}

export function sendProblem(reply: FastifyReply, err: AppError) {
  if (err.extras.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.extras.retryAfterSeconds))
  return reply.status(err.status).type('application/problem+json').send(problemBody(err))
}

/** Turns whatever was thrown into a problem; unknown errors are logged and never leak their text. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err
  const fe = err as FastifyError
  if (fe?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fe?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || (fe as any)?.type === 'entity.parse.failed' || fe instanceof SyntaxError) {
    return new AppError('invalid_input', 'the body is not valid JSON', { errors: [{ field: 'body', message: 'is not valid JSON' }] })
  }
  if (fe?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError('invalid_input', 'send the body as application/json', { errors: [{ field: 'body', message: 'must be application/json' }], status: 415 })
  }
  if (fe?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new AppError('invalid_input', 'the body is too large', { errors: [{ field: 'body', message: 'is too large' }], status: 413 })
  }
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError('invalid_input', fe.message, { errors: [{ field: 'request', message: fe.message }], status: fe.statusCode })
  }
  return new AppError('internal', 'an internal error occurred', { status: statusOf('internal') })
}

export function registerProblemHandlers(app: FastifyInstance) {
  app.setErrorHandler((err, request, reply) => {
    const appError = toAppError(err)
    if (appError.code === 'internal') request.log.error({ err }, 'unhandled error')
    return sendProblem(reply, appError)
  })
}
