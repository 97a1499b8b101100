import { jsonResponse, type SandboxResponse } from '../kit/http.ts'
import { Refusal } from '../model-kit/refusal.ts'

/**
 * OpenAI's error answers: `{error: {message, type, param, code}}` (the `ErrorResponse` schema of
 * OpenAI's OpenAPI file), with the texts the API sends (docs/sandbox.md, "Refusals").
 */
export function openaiError(
  status: number,
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
  headers: Record<string, string> = {},
): SandboxResponse {
  return jsonResponse(status, { error: { message, type, param, code } }, headers)
}

/** A 400 `invalid_request_error`, thrown. */
export function refuse(message: string, param: string | null = null, code: string | null = null): never {
  throw new Refusal(openaiError(400, message, 'invalid_request_error', param, code))
}

export const missing = (param: string): never =>
  refuse(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter')

const kindOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`

export const wrongType = (param: string, expected: string, value: unknown): never =>
  refuse(
    `Invalid type for '${param}': expected ${expected}, but got ${kindOf(value)} instead.`,
    param,
    'invalid_type',
  )

/** `Supported values are: 'a', 'b', and 'c'.` as OpenAI lists them. */
export function invalidValue(param: string, value: unknown, supported: readonly string[]): never {
  const quoted = supported.map((s) => `'${s}'`)
  const list =
    quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')}, and ${quoted[quoted.length - 1]}` : quoted[0]
  return refuse(`Invalid value: '${String(value)}'. Supported values are: ${list}.`, param, 'invalid_value')
}

export const unparsableBody = (): SandboxResponse =>
  openaiError(
    400,
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
    'invalid_request_error',
  )

export const unknownModel = (model: string): SandboxResponse =>
  openaiError(
    404,
    `The model \`${model}\` does not exist or you do not have access to it.`,
    'invalid_request_error',
    null,
    'model_not_found',
  )

export const rateLimited = (retryAfter: number | null): SandboxResponse =>
  openaiError(
    429,
    'Rate limit reached for sandbox-model in organization org-sandbox on requests per min (RPM): Limit 60, Used 60, Requested 1. Please try again in 1s.',
    'requests',
    null,
    'rate_limit_exceeded',
    retryAfter === null
      ? {}
      : { 'retry-after': String(retryAfter), 'retry-after-ms': String(retryAfter * 1000) },
  )

export const serverError = (status: number): SandboxResponse =>
  status === 503
    ? openaiError(503, 'The engine is currently overloaded, please try again later', 'server_error')
    : openaiError(
        status,
        'The server had an error while processing your request. Sorry about that!',
        'server_error',
      )

export const notFoundRoute = (method: string, path: string): SandboxResponse =>
  openaiError(404, `Invalid URL (${method} ${path})`, 'invalid_request_error')
