import { describe, expect, it } from 'vitest'
import { AppError, ERROR_CODES, statusOf, type ErrorCode } from './errors.ts'

// One HTTP status per code (docs/errors.md): a caller can branch on the code or the status alike.
const STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unauthenticated: 401,
  connect_failed: 400,
  reconnect_required: 409,
  platform_refused: 502,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  plan_required: 402,
  not_configured: 409,
  rate_limited: 429,
  upstream_error: 502,
  internal: 500,
}

describe('the error vocabulary', () => {
  it('lists every code once, each with the status docs/errors.md gives it', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length)
    expect(Object.fromEntries(ERROR_CODES.map((code) => [code, statusOf(code)]))).toEqual(STATUS)
  })

  it.each(ERROR_CODES)("an AppError of %s answers its code's status whatever its extras say", (code) => {
    const extras = { upstreamStatus: 418, errors: [{ field: 'x', message: 'y' }], status: 299 } as never
    expect(new AppError(code, 'm', extras).status).toBe(STATUS[code])
  })
})
