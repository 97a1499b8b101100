import { jsonResponse, type SandboxResponse } from '../kit/http.ts'
import { Refusal } from '../model-kit/refusal.ts'

/**
 * Anthropic's error answers: `{type: 'error', error: {type, message}, request_id}` with the
 * `request-id` header, and the texts the API sends (docs/sandbox.md, "Refusals").
 */
export function anthropicError(
  status: number,
  type: string,
  message: string,
  requestId: string,
  headers: Record<string, string> = {},
): SandboxResponse {
  return jsonResponse(
    status,
    { type: 'error', error: { type, message }, request_id: requestId },
    { 'request-id': requestId, ...headers },
  )
}

/** A 400 `invalid_request_error`, thrown; the request id is filled in by the route. */
export function refuse(message: string): never {
  throw new Refusal(anthropicError(400, 'invalid_request_error', message, ''))
}

export const fieldRequired = (field: string): never => refuse(`${field}: Field required`)

/** The status an error type goes with. */
export const ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  not_found_error: 404,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
}

/** Anthropic's answer to an injected status: 529 is `overloaded_error`, other 5xx `api_error`. */
export function statusFault(status: number, requestId: string): SandboxResponse {
  if (status === 529) return anthropicError(529, 'overloaded_error', 'Overloaded', requestId)
  return anthropicError(status, 'api_error', 'Internal server error', requestId)
}

export function rateLimited(retryAfter: number | null, requestId: string): SandboxResponse {
  return anthropicError(
    429,
    'rate_limit_error',
    'This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase.',
    requestId,
    retryAfter === null ? {} : { 'retry-after': String(retryAfter) },
  )
}
