import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { AppError, type ErrorCode } from '../core/errors.ts'

const TITLES: Record<ErrorCode, string> = {
  invalid_input: 'Invalid input',
  payload_too_large: 'The body is too large',
  unsupported_media_type: 'Unsupported media type',
  unauthenticated: 'Authentication required',
  connect_failed: 'The integration could not be connected',
  reconnect_required: 'The integration needs reconnection',
  platform_refused: "The platform refused the integration's credentials",
  forbidden: 'Forbidden',
  not_found: 'Not found',
  conflict: 'Conflict',
  gone: 'Gone',
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
    ...(extras.troubleshooting && {
      troubleshooting: extras.troubleshooting.rules,
      applies: extras.troubleshooting.applies,
    }),
    ...(extras.retryAfterSeconds !== undefined && { retry_after: extras.retryAfterSeconds }),
    ...(extras.requiredPlan && { required_plan: extras.requiredPlan }),
    ...(extras.upstreamStatus !== undefined && { upstream_status: extras.upstreamStatus }),
    ...(extras.integrationId && { integration_id: extras.integrationId }),
  }
}

export function sendProblem(reply: FastifyReply, err: AppError) {
  if (err.extras.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(err.extras.retryAfterSeconds))
  return reply.status(err.status).type('application/problem+json').send(problemBody(err))
}

/** Turns whatever was thrown into a problem; unknown errors are logged and never leak their text. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err
  const fe = err as FastifyError
  if (
    fe?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    fe?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    (fe as any)?.type === 'entity.parse.failed' ||
    fe instanceof SyntaxError
  ) {
    return new AppError('invalid_input', 'the body is not valid JSON', {
      errors: [{ field: 'body', message: 'is not valid JSON' }],
    })
  }
  if (fe?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError('unsupported_media_type', 'send the body as application/json', {
      errors: [{ field: 'body', message: 'must be application/json' }],
    })
  }
  if (fe?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new AppError('payload_too_large', 'the body is too large', {
      errors: [{ field: 'body', message: 'is too large' }],
    })
  }
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 404) return new AppError('not_found', fe.message)
    if (fe.statusCode === 413)
      return new AppError('payload_too_large', fe.message, {
        errors: [{ field: 'body', message: fe.message }],
      })
    if (fe.statusCode === 415)
      return new AppError('unsupported_media_type', fe.message, {
        errors: [{ field: 'body', message: fe.message }],
      })
    return new AppError('invalid_input', fe.message, { errors: [{ field: 'request', message: fe.message }] })
  }
  return new AppError('internal', 'an internal error occurred')
}

/** `onError` counts every error answered, by code (the metrics). */
export function registerProblemHandlers(app: FastifyInstance, onError: (code: ErrorCode) => void = () => {}) {
  app.setErrorHandler((err, request, reply) => {
    const appError = toAppError(err)
    onError(appError.code)
    if (appError.code === 'internal') request.log.error({ err }, 'unhandled error')
    return sendProblem(reply, appError)
  })
}
