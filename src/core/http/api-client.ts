import { Agent } from 'undici'
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from '../config.ts'
import { AppError } from '../errors.ts'
import {
  pauseAfter,
  rateLimited,
  retryAfterMs,
  sleep,
  type RateLimitFacts,
  type WaitMode,
} from '../limits/rate-limit-headers.ts'
import type { BudgetWindow, RateBudget } from '../limits/budget.ts'
import { backoffMs, MAX_ATTEMPTS, MAX_RETRY_WAIT_MS, shouldRetry, type Outcome } from '../limits/retry.ts'
import type { HttpMethod } from './method.ts'
import { parseEndpoint, pinnedUrl, type PathPrefix } from './endpoint.ts'
import { UNSTORABLE_ESCAPE_IN_JSON, withStorableText } from '../store/storable-text.ts'
import { exchangeWhole, type ReceivedHeaders } from './whole-exchange.ts'

export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024
const REQUEST_TIMEOUT_MS = 30_000
/**
 * The default deadline of one exchange, from sending to the last byte of the answer: the idle
 * timeouts below alone let a platform that trickles its answer hold a call for ever.
 * SWITCHYARD_UPSTREAM_TIMEOUT_MS (docs/configuration.md) sets it.
 */
export const UPSTREAM_TIMEOUT_MS = DEFAULT_UPSTREAM_TIMEOUT_MS

// One keep-alive pool for every upstream origin; undici's `request` never follows redirects.
const dispatcher = new Agent({
  keepAliveTimeout: 10_000,
  connections: 64,
  headersTimeout: REQUEST_TIMEOUT_MS,
  bodyTimeout: REQUEST_TIMEOUT_MS,
})

export type QueryValue = string | number | boolean | undefined | null
export interface ApiRequest {
  method: HttpMethod
  /** Relative path under the platform prefix, optionally with a query string. */
  path: string
  query?: Record<string, QueryValue>
  /** Sent as JSON; a Blob (a file) is sent as its bytes, with its type as the content type. */
  body?: unknown
  headers?: Record<string, string>
}

export interface ApiResponse {
  status: number
  headers: Record<string, string>
  body: unknown
}

export interface RequestOptions {
  /** Pre-built steps wait (boundedly); the API Call step fails fast. */
  rateLimit?: WaitMode
}

export interface ApiClient {
  /** Sends one request with retries; never throws for an HTTP status except a 429 it cannot wait out. */
  request(req: ApiRequest, options?: RequestOptions): Promise<ApiResponse>
  get<T = any>(path: string, query?: Record<string, QueryValue>): Promise<T>
  post<T = any>(path: string, body?: unknown): Promise<T>
  put<T = any>(path: string, body?: unknown): Promise<T>
  patch<T = any>(path: string, body?: unknown): Promise<T>
  delete<T = any>(path: string): Promise<T>
}

export interface ApiClientOptions {
  baseUrl: string
  pathPrefix: PathPrefix
  /** Added to every request unless the request sets them itself. */
  defaultQuery?: Record<string, string>
  /** Produces the auth headers for each attempt (after any token refresh); OAuth 1.0a signs method and URL. */
  authorize(method: HttpMethod, url: string): Promise<Record<string, string>>
  rateLimit: RateLimitFacts
  /** Turns a non-2xx answer into an AppError in the platform's own words. */
  toError(response: ApiResponse): AppError
  /**
   * The budget every request on this credential draws on, shared across processes: its windows
   * count requests, and pauses the platform announces (a 429, a reset time) hold them all back.
   */
  budget: {
    budget: RateBudget
    windows: BudgetWindow[]
    agentId: string
    /** Labels its rate-limit waits in the metrics. */ platform?: string
  }
  /**
   * Told when the platform refuses the credential itself (not one request), whichever step sent the
   * request: a pre-built step that fails, or an API Call that returns the refusal as data. `retry`:
   * a replacement credential is in place (`authorize` uses it), so the request is sent once more.
   */
  onCredentialRefused?: () => Promise<'retry' | 'done'>
  /** The deadline of one exchange with the platform; UPSTREAM_TIMEOUT_MS when unset. */
  timeoutMs?: number
}

const DEFAULT_WAIT: WaitMode = { kind: 'wait', maxWaitMs: MAX_RETRY_WAIT_MS }

export function createApiClient(options: ApiClientOptions): ApiClient {
  const send = async (req: ApiRequest, requestOptions: RequestOptions = {}): Promise<ApiResponse> => {
    const endpoint = parseEndpoint(req.path, options.pathPrefix)
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined && value !== null) endpoint.query.append(key, String(value))
    }
    for (const [key, value] of Object.entries(options.defaultQuery ?? {})) {
      if (!endpoint.query.has(key)) endpoint.query.set(key, value)
    }
    const url = pinnedUrl(options.baseUrl, options.pathPrefix, endpoint.path, endpoint.query)
    const mode = requestOptions.rateLimit ?? DEFAULT_WAIT
    const deadline = Date.now() + (mode.kind === 'wait' ? mode.maxWaitMs : 0)
    const file = req.body instanceof Blob ? req.body : undefined
    const body = file
      ? new Uint8Array(await file.arrayBuffer())
      : req.body === undefined
        ? undefined
        : JSON.stringify(req.body)

    const { budget, windows, agentId, platform } = options.budget
    for (let attempt = 1; ; attempt++) {
      const remaining: WaitMode =
        mode.kind === 'wait' ? { kind: 'wait', maxWaitMs: Math.max(0, deadline - Date.now()) } : mode
      await budget.take(windows, agentId, remaining, platform)
      const headers: Record<string, string> = {
        accept: 'application/json',
        'user-agent': 'Switchyard/0.1',
        ...req.headers,
        ...(await options.authorize(req.method, url.toString())),
      }
      if (body !== undefined)
        headers['content-type'] = file ? file.type || 'application/octet-stream' : 'application/json'

      let outcome: Outcome
      let response: ApiResponse | undefined
      let pauseMs = 0
      try {
        response = await sendOnce(url, req.method, headers, body, options.timeoutMs ?? UPSTREAM_TIMEOUT_MS)
        pauseMs = pauseAfter(options.rateLimit, response.status, response.headers)
        // A 429, or nothing left until the reset: every process holds this credential back.
        if (pauseMs > 0)
          await budget.block(
            windows.map((w) => w.key),
            Date.now() + pauseMs,
          )
        if (response.status === 429) {
          if (mode.kind === 'fail') throw rateLimited(pauseMs)
          outcome = { kind: 'rate_limited' }
        } else if (response.status >= 500) {
          outcome = { kind: 'server_error', status: response.status }
        } else {
          if (
            (response.status === 401 || response.status === 403) &&
            options.onCredentialRefused &&
            options.toError(response).extras.credentialFailure
          ) {
            if ((await options.onCredentialRefused()) === 'retry') continue
          }
          return response
        }
      } catch (err) {
        if (err instanceof AppError) throw err
        outcome = isNotSent(err) ? { kind: 'not_sent' } : { kind: 'lost' }
        if (attempt >= MAX_ATTEMPTS || !shouldRetry(req.method, outcome)) {
          throw new AppError('upstream_error', `could not reach the platform: ${describeNetworkError(err)}`)
        }
      }

      const delay =
        outcome.kind === 'rate_limited'
          ? pauseMs
          : ((response && retryAfterMs(response.headers)) ?? backoffMs(attempt))
      const canWait = mode.kind === 'wait' && Date.now() + delay <= deadline
      if (attempt >= MAX_ATTEMPTS || !shouldRetry(req.method, outcome) || !canWait) {
        if (outcome.kind === 'rate_limited') throw rateLimited(pauseMs)
        if (response) return response
        throw new AppError('upstream_error', 'could not reach the platform')
      }
      if (outcome.kind !== 'rate_limited') await sleep(delay) // the budget itself waits out the pause
    }
  }

  const call = async (
    method: HttpMethod,
    path: string,
    body?: unknown,
    query?: Record<string, QueryValue>,
  ) => {
    const response = await send({ method, path, body, query })
    if (response.status >= 200 && response.status < 300) return response.body as any
    throw options.toError(response)
  }

  return {
    request: send,
    get: (path, query) => call('GET', path, undefined, query),
    post: (path, body) => call('POST', path, body ?? {}),
    put: (path, body) => call('PUT', path, body ?? {}),
    patch: (path, body) => call('PATCH', path, body ?? {}),
    delete: (path) => call('DELETE', path),
  }
}

/** One exchange, its answer read whole under MAX_RESPONSE_BYTES (whole-exchange.ts) and parsed. */
async function sendOnce(
  url: URL,
  method: HttpMethod,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  timeoutMs: number,
): Promise<ApiResponse> {
  const answer = await exchangeWhole({
    dispatcher,
    url,
    method,
    headers,
    body,
    maxBytes: MAX_RESPONSE_BYTES,
    tooLarge,
    // A declared length over the bound is refused before a byte of the body is read.
    refuse: (received) => (Number(received['content-length']) > MAX_RESPONSE_BYTES ? tooLarge() : undefined),
    deadline: {
      ms: timeoutMs,
      error: () => new AppError('upstream_error', `the platform did not answer within ${timeoutMs / 1000} s`),
    },
  })
  const responseHeaders = flattenHeaders(answer.headers)
  return {
    status: answer.status,
    headers: responseHeaders,
    body: parseBody(answer.body.toString('utf8'), responseHeaders['content-type']),
  }
}

const tooLarge = () =>
  new AppError('upstream_error', `the platform's response is larger than ${MAX_RESPONSE_BYTES} bytes`)

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return null
  if (contentType?.includes('json')) {
    try {
      const parsed: unknown = JSON.parse(text)
      // An answer holding NUL or a lone surrogate is kept with U+FFFD in its place, as the intake does
      // with deliveries (core/store/storable-text.ts): the step did its work, and the run stores it.
      return UNSTORABLE_ESCAPE_IN_JSON.test(text) ? withStorableText(parsed) : parsed
    } catch {
      return text
    }
  }
  return text
}

function flattenHeaders(headers: ReceivedHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'])

function isNotSent(err: unknown): boolean {
  const code = (err as any)?.code ?? (err as any)?.cause?.code
  return NOT_SENT_CODES.has(code)
}

function describeNetworkError(err: unknown): string {
  const code = (err as any)?.code ?? (err as any)?.cause?.code
  return code ? String(code) : 'connection failed'
}
