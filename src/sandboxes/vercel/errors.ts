import { jsonResponse, type SandboxResponse } from './http.ts'

/**
 * Vercel's error envelope `{"error":{"code","message"}}` (sources: Vercel errors, V-ERR, V-TF).
 */
export function vercelError(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): SandboxResponse {
  return jsonResponse(status, { error: { code, message, ...extra } })
}

/** No token, an unknown token, or a token used outside its scope: 403 "Not authorized" (sources: Vercel errors). */
export const forbidden = (message = 'Not authorized'): SandboxResponse =>
  vercelError(403, 'forbidden', message)

export const badRequest = (message: string, extra: Record<string, unknown> = {}): SandboxResponse =>
  vercelError(400, 'bad_request', message, extra)

export const notFound = (message: string): SandboxResponse => vercelError(404, 'not_found', message)

export const conflict = (message: string, code = 'conflict'): SandboxResponse =>
  vercelError(409, code, message)

/** Unknown path or unknown version segment (e.g. `/v12/deployments`). Wording [UNV]. */
export const endpointNotFound = (): SandboxResponse => notFound('The requested API endpoint was not found.')

/**
 * Known path, other method: V-ERR lists `method_unknown` "This endpoint only responds to METHOD";
 * the status code is not documented, 405 is the sandbox's choice.
 */
export const methodUnknown = (methods: string[]): SandboxResponse =>
  vercelError(405, 'method_unknown', `This endpoint only responds to ${methods.join(', ')}`)

export const internalError = (): SandboxResponse =>
  vercelError(500, 'internal_server_error', 'An unexpected internal error occurred')
