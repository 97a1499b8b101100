import { AppError } from '../errors.ts'
import { rateLimited, retryAfterMs } from '../limits/rate-limit-headers.ts'
import type { PlatformDefinition } from '../platforms/types.ts'
import type { ApiResponse } from './api-client.ts'

/** Maps a platform's non-2xx answer onto the error vocabulary, in the platform's own words. */
export function upstreamError(platform: PlatformDefinition, response: ApiResponse): AppError {
  const problem = platform.describeError(response.status, response.body)
  const message = `${platform.title}: ${problem.message}`
  const { rules, diagnose } = platform.troubleshooting
  switch (true) {
    case response.status === 400 || response.status === 422:
      return new AppError('invalid_input', message, {
        errors: problem.fieldErrors?.length
          ? problem.fieldErrors
          : [{ field: 'input', message: problem.message }],
        upstreamStatus: response.status,
      })
    case response.status === 401 || response.status === 403:
      // The caller authenticated fine; it is the integration the platform refused.
      return new AppError('platform_refused', message, {
        upstreamStatus: response.status,
        upstreamMessage: problem.message,
        credentialFailure: platform.isCredentialFailure
          ? platform.isCredentialFailure(response.status, problem)
          : response.status === 401,
        troubleshooting: {
          rules,
          applies: diagnose({ stage: 'call', status: response.status, error: problem.message }),
        },
      })
    case response.status === 404:
      return new AppError('not_found', message, { upstreamStatus: 404 })
    case response.status === 409:
      return new AppError('conflict', message, { upstreamStatus: 409 })
    case response.status === 429:
      return rateLimited(retryAfterMs(response.headers) ?? 1000)
    default:
      return new AppError('upstream_error', message, { upstreamStatus: response.status })
  }
}
