import { parseBody } from './body.ts'
import type { SandboxClock } from './clock.ts'
import { faultName, parseFaultSpec, type FaultRules } from './faults.ts'
import {
  decodeOrKeep,
  emptyResponse,
  isRecord,
  jsonResponse,
  type IncomingRequest,
  type SandboxResponse,
} from './http.ts'
import type { LoggedRequest } from './request-log.ts'
import type { SandboxMachinery } from './plugin.ts'

/**
 * What every sandbox's control API (`{prefix}/_control/...`, docs/sandbox.md) shares: the routes
 * that move the clock, inject faults, read the request log and reset, and the router Zendesk's and
 * Trello's control APIs run on. Building each platform's world (accounts, members, projects) stays
 * in its sandbox.
 */

/** How a control API words its errors. */
export interface ControlErrors {
  badRequest(description: string): SandboxResponse
  notFound(description: string): SandboxResponse
}

/** The `{error, description}` errors of the Zendesk and Trello control APIs. */
export const problem = (status: number, error: string, description: string): SandboxResponse =>
  jsonResponse(status, { error, description })
export const badRequest = (description: string): SandboxResponse =>
  problem(400, 'invalid_request', description)
export const notFound = (description: string): SandboxResponse => problem(404, 'not_found', description)
export const describedErrors: ControlErrors = { badRequest, notFound }

/** A sandbox instance as its control API sees it. */
export interface ControlMachinery extends SandboxMachinery {
  readonly clock: SandboxClock
  /** Back to the state right after start. */
  reset(): void
}

export interface MachineryOptions {
  errors: ControlErrors
  /** The platform's limits on injected faults. */
  faultRules?: FaultRules
  /** Runs after the clock moves (Vercel moves deployments along at once). */
  clockMoved?: () => void
}

/** A whole-number query parameter, or undefined when absent or not one. */
export function queryCount(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name)
  return raw !== null && /^\d+$/.test(raw) ? Number(raw) : undefined
}

const instant = (value: unknown): number | undefined => {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return Date.parse(value)
  return undefined
}

/** The control routes for the test machinery that every sandbox has. */
export class MachineryControl {
  constructor(
    private readonly sandbox: ControlMachinery,
    private readonly options: MachineryOptions,
  ) {}

  private clockJson(): SandboxResponse {
    const now = this.sandbox.now()
    return jsonResponse(200, { now: new Date(now).toISOString(), now_ms: now })
  }

  /** `GET /clock` → `{now: ISO, now_ms}`. */
  getClock(): SandboxResponse {
    return this.clockJson()
  }

  /** `POST /clock` with `{advance_ms}`, or `{now}` / `{set}` as ISO 8601 or epoch ms. */
  moveClock(body: Record<string, unknown>): SandboxResponse {
    const { advance_ms: advance } = body
    const at = body.now ?? body.set
    if (advance !== undefined) {
      if (typeof advance !== 'number' || !Number.isFinite(advance) || advance < 0)
        return this.options.errors.badRequest('advance_ms must be a non-negative number')
      this.sandbox.clock.advance(advance)
    } else if (instant(at) !== undefined) {
      this.sandbox.clock.set(instant(at) as number)
    } else {
      return this.options.errors.badRequest(
        'give advance_ms (milliseconds) or now (ISO 8601 or epoch milliseconds)',
      )
    }
    this.options.clockMoved?.()
    return this.clockJson()
  }

  listFaults(): SandboxResponse {
    return jsonResponse(200, { faults: this.sandbox.faults.list() })
  }

  /** `POST /faults` → 201 `{id, kind, fault}`. */
  addFault(body: unknown): SandboxResponse {
    const parsed = parseFaultSpec(body, this.options.faultRules)
    if (!parsed.ok) return this.options.errors.badRequest(parsed.problem)
    const fault = this.sandbox.faults.add(parsed.spec)
    return jsonResponse(201, { id: fault.id, kind: faultName(fault), fault })
  }

  clearFaults(): SandboxResponse {
    this.sandbox.faults.clear()
    return emptyResponse(204)
  }

  removeFault(id: string): SandboxResponse {
    return this.sandbox.faults.remove(id) ? emptyResponse(204) : this.options.errors.notFound('no such fault')
  }

  /** `GET /requests?limit=N` → `{requests}`, oldest first; `matching` narrows them (Zendesk: `?account=`). */
  listRequests(query: URLSearchParams, matching?: (entry: LoggedRequest) => boolean): SandboxResponse {
    return jsonResponse(200, { requests: this.sandbox.requestLog.list(queryCount(query, 'limit'), matching) })
  }

  clearRequests(): SandboxResponse {
    this.sandbox.requestLog.clear()
    return emptyResponse(204)
  }

  reset(): SandboxResponse {
    this.sandbox.reset()
    return jsonResponse(200, { reset: true })
  }
}

/** One control route: `pattern` is matched against the path after `/_control`, its groups become `params`. */
export interface ControlRoute<C> {
  method: string
  pattern: RegExp
  handle(ctx: C): SandboxResponse | Promise<SandboxResponse>
}

/** What every control handler gets; each sandbox adds its own instance and base URL. */
export interface ControlInput {
  req: IncomingRequest
  /** Captured path segments, percent-decoded. */
  params: string[]
  /** The JSON body (`{}` when there is none). */
  body: Record<string, unknown>
}

/** Control bodies are JSON; a form is read too, and a body of another type is no body. */
const CONTROL_BODIES = { untyped: 'json', otherTypes: 'ignore', repeatedFormNames: 'last' } as const

/**
 * Routes a control request: the first route whose pattern and method fit gets the JSON body; a
 * path served only for other methods answers 405, an unknown one 404. Trailing slashes are ignored.
 */
export async function routeControl<C>(
  routes: ControlRoute<C>[],
  req: IncomingRequest,
  path: string,
  context: (input: ControlInput) => C,
): Promise<SandboxResponse> {
  const normalized = path.replace(/\/+$/, '') || '/'
  let methodMismatch = false
  for (const route of routes) {
    const found = route.pattern.exec(normalized)
    if (!found) continue
    if (route.method !== req.method) {
      methodMismatch = true
      continue
    }
    const parsed = parseBody(req, CONTROL_BODIES)
    if (!parsed.ok) return badRequest('body is not valid JSON')
    if (parsed.value !== undefined && !isRecord(parsed.value)) return badRequest('body must be a JSON object')
    const body = (parsed.value as Record<string, unknown> | undefined) ?? {}
    return route.handle(context({ req, params: found.slice(1).map(decodeOrKeep), body }))
  }
  return methodMismatch
    ? problem(405, 'method_not_allowed', `${req.method} is not supported here`)
    : notFound(`no control route ${path}`)
}
