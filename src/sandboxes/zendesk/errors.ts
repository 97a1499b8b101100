import { jsonResponse, type SandboxResponse } from './http.ts'

/**
 * Zendesk's own error bodies. Sources are sources: Zendesk errors unless noted; [UNV] marks
 * bodies that come from memory or a single third-party probe rather than a vendor document.
 */

/** Basic or API-token authentication failed, or no credentials at all [CAP]. */
export function couldNotAuthenticate(): SandboxResponse {
  // Zendesk answers Basic failures with a Basic challenge; harmless for API clients.
  return jsonResponse(
    401,
    { error: "Couldn't authenticate you" },
    { 'www-authenticate': 'Basic realm="Web Password"' },
  )
}

/** Bearer token unknown, expired, revoked, or minted for another account [CAP]. */
export function invalidToken(): SandboxResponse {
  return jsonResponse(
    401,
    {
      error: 'invalid_token',
      error_description:
        'The access token provided is expired, revoked, malformed or invalid for other reasons.',
    },
    { 'www-authenticate': 'Bearer realm="Zendesk", error="invalid_token"' },
  )
}

/**
 * Role or scope does not allow the request [UNV per sources: Zendesk errors]. A third-party probe also saw
 * `{"error":{"title":"Forbidden","message":...}}` on some endpoints; the product spec fixes this
 * flat shape, so the sandbox uses it everywhere.
 */
export function forbidden(): SandboxResponse {
  return jsonResponse(403, {
    error: 'Forbidden',
    description:
      'You do not have access to this page. Please contact the account owner of this help desk for further help.',
  })
}

/** A record that does not exist (or was deleted) [OFF-M]. */
export function recordNotFound(): SandboxResponse {
  return jsonResponse(404, { error: 'RecordNotFound', description: 'Not found' })
}

/** No such route, or a method the route does not support [UNV]. */
export function invalidEndpoint(): SandboxResponse {
  return jsonResponse(404, { error: 'InvalidEndpoint', description: 'Not found' })
}

/**
 * Unknown subdomain. Real Zendesk serves "No help desk at {sub}.zendesk.com" with this
 * message (captured in client test fixtures that expect 404); the JSON envelope is the
 * `{"error":{"title","message"}}` form Zendesk uses for account-level errors [UNV shape].
 */
export function noHelpDesk(subdomain: string): SandboxResponse {
  return jsonResponse(404, {
    error: {
      title: `No help desk at ${subdomain}.zendesk.com`,
      message:
        'There is no help desk configured at this address. This means that the address is available and that you can claim it at http://www.zendesk.com/signup',
    },
  })
}

/** Unparseable JSON body. Zendesk answers 400 with this body [UNV, from memory]. */
export function malformedJson(): SandboxResponse {
  return jsonResponse(400, { error: 'Unprocessable Entity', description: 'Server could not parse JSON' })
}

export interface FieldError {
  description: string
  error?: string
}
export type ValidationDetails = Record<string, FieldError[]>

/** 422 RecordInvalid with per-field `details` [CAP: java-client #91, node-zendesk #3, zenpy #287]. */
export function recordInvalid(details: ValidationDetails): SandboxResponse {
  return jsonResponse(422, { error: 'RecordInvalid', description: 'Record validation errors', details })
}

/** Collects field errors while validating a request body. */
export class ValidationErrors {
  readonly details: ValidationDetails = {}

  add(field: string, description: string, error?: string): void {
    const list = (this.details[field] ??= [])
    list.push(error === undefined ? { description } : { description, error })
  }

  get empty(): boolean {
    return Object.keys(this.details).length === 0
  }

  response(): SandboxResponse {
    return recordInvalid(this.details)
  }
}

/** Missing root object, e.g. `POST /tickets` without `{"ticket":{...}}` [UNV]. */
export function missingParameter(name: string): SandboxResponse {
  return jsonResponse(400, {
    error: 'ParameterMissing',
    description: `param is missing or the value is empty: ${name}`,
  })
}

/** Offset pagination past page 100 / 10,000 records (Z-PAG2; body shape from a captured probe). */
export function invalidPaginationDepth(): SandboxResponse {
  return jsonResponse(400, {
    errors: [
      {
        code: 'InvalidPaginationDepth',
        title:
          'Pagination requests using Offset Pagination are limited to page 100 or up to 10000 records (page * per_page)',
        detail:
          'There are limits to how deep you can paginate with offset pagination. Use cursor pagination (page[size]) to retrieve more records.',
      },
    ],
  })
}

/** A cursor or sort the cursor paginator cannot honour (captured code name, [UNV] wording). */
export function invalidPaginationParameter(detail: string): SandboxResponse {
  return jsonResponse(400, {
    errors: [{ code: 'InvalidPaginationParameter', title: 'Invalid pagination parameter', detail }],
  })
}

/** Search errors use `{"error":"invalid"|"unavailable","description"}` (search.yml, Errors JSON Format). */
export function invalidSearch(description: string, status = 400): SandboxResponse {
  return jsonResponse(status, { error: 'invalid', description })
}
