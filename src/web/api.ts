// Fetch wrapper for the Switchyard REST API (docs/rest-api.md). Every failure becomes an ApiError
// carrying the server's application/problem+json body, so pages can show field errors and
// troubleshooting rules without parsing responses themselves.

import { ERROR_CODES, type ErrorCode } from '../core/errors.ts'
import type { Answer, Schema } from './api-shapes.ts'

/**
 * The server's error codes (src/core/errors.ts, docs/errors.md), plus the client's own for a request
 * that got no answer or an answer without a code.
 */
export type ProblemCode = ErrorCode | 'network_error' | 'server_error' | 'error'

export type FieldError = NonNullable<Schema<'Problem'>['errors']>[number]

/**
 * The client's reading of any error answer: the server's Problem (api-types.generated.ts), or what a
 * proxy in between said, so members the server always sends may be absent and the code may be the
 * client's own.
 */
export interface Problem {
  type?: string
  title: string
  status: number
  code: ProblemCode
  detail?: string
  errors?: FieldError[]
  troubleshooting?: string[]
  applies?: number[]
  required_plan?: string
  retry_after?: number
  upstream_status?: number
  /** reconnect_required: the integration to reconnect. */
  integration_id?: string
}

export class ApiError extends Error {
  readonly problem: Problem

  constructor(problem: Problem) {
    super(problem.detail ?? problem.title)
    this.name = 'ApiError'
    this.problem = problem
  }

  get status(): number {
    return this.problem.status
  }

  get code(): ProblemCode {
    return this.problem.code
  }
}

/** Status 0 marks a request that never got an HTTP answer. */
export const NETWORK_ERROR_STATUS = 0

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** For an error answer without a code (a proxy's page, say): the code the status most likely means. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_input',
  401: 'unauthenticated',
  402: 'plan_required',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  502: 'upstream_error',
}

const isErrorCode = (code: string | undefined): code is ErrorCode =>
  (ERROR_CODES as readonly string[]).includes(code ?? '')

/** Turns any error response body into a Problem, keeping only well-typed members. */
export function toProblem(status: number, body: unknown, statusText = ''): Problem {
  const b = isRecord(body) ? body : {}
  const str = (k: string) => (typeof b[k] === 'string' ? (b[k] as string) : undefined)
  const num = (k: string) => (typeof b[k] === 'number' ? (b[k] as number) : undefined)
  const code = str('code')
  const problem: Problem = {
    status: num('status') ?? status,
    code: isErrorCode(code) ? code : (CODE_BY_STATUS[status] ?? (status >= 500 ? 'server_error' : 'error')),
    title: str('title') ?? (statusText || `Request failed (${status})`),
  }
  const optional: Partial<Problem> = {
    type: str('type'),
    detail:
      str('detail') ?? (typeof body === 'string' && body.trim() ? body.trim().slice(0, 500) : undefined),
    required_plan: str('required_plan'),
    retry_after: num('retry_after'),
    upstream_status: num('upstream_status'),
    integration_id: str('integration_id'),
  }
  for (const [k, v] of Object.entries(optional))
    if (v !== undefined) (problem as unknown as Record<string, unknown>)[k] = v
  if (Array.isArray(b.errors)) {
    problem.errors = b.errors.filter(isRecord).map((e) => ({
      field: typeof e.field === 'string' ? e.field : '',
      message: typeof e.message === 'string' ? e.message : String(e.message ?? ''),
    }))
  }
  if (Array.isArray(b.troubleshooting))
    problem.troubleshooting = b.troubleshooting.filter((t): t is string => typeof t === 'string')
  if (Array.isArray(b.applies)) problem.applies = b.applies.filter((n): n is number => Number.isInteger(n))
  return problem
}

type UnauthenticatedListener = () => void
const unauthenticatedListeners = new Set<UnauthenticatedListener>()

/** Called whenever an API call (other than signing in) answers 401: the session is gone. */
export function onUnauthenticated(listener: UnauthenticatedListener): () => void {
  unauthenticatedListeners.add(listener)
  return () => unauthenticatedListeners.delete(listener)
}

export interface RequestOptions {
  /** Set false where a 401 is an expected answer (signing in) rather than a lost session. */
  notifyUnauthenticated?: boolean
  signal?: AbortSignal
}

export async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json, application/problem+json' }
  const init: RequestInit = { method, headers, credentials: 'same-origin', signal: opts.signal }
  if (method !== 'GET' && method !== 'HEAD') {
    // State-changing calls always send JSON (an empty object when there is nothing to say): the
    // server only accepts JSON bodies, and the browser adds the Origin header it checks.
    headers['Content-Type'] = 'application/json'
    init.body = JSON.stringify(body ?? {})
  }
  let res: Response
  try {
    res = await fetch(path, init)
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err
    throw new ApiError({
      status: NETWORK_ERROR_STATUS,
      code: 'network_error',
      title: 'Could not reach Switchyard',
      detail: 'Check your connection and that the service is running, then try again.',
    })
  }
  const text = res.status === 204 ? '' : await res.text()
  let parsed: unknown = text
  if (text && /json/i.test(res.headers.get('content-type') ?? '')) {
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = text
    }
  }
  if (!res.ok) {
    const problem = toProblem(res.status, parsed, res.statusText)
    if (res.status === 401 && opts.notifyUnauthenticated !== false)
      for (const l of unauthenticatedListeners) l()
    throw new ApiError(problem)
  }
  return (text ? parsed : undefined) as T
}

// ---- Resources: named from the generated REST types (npm run types:api) ---------------------

export type Plan = Schema<'User'>['plan']
export type Me = Answer<'/v1/me', 'get'>
export type ApiKey = Schema<'ApiKey'>
export type CreatedApiKey = Schema<'CreatedApiKey'>

export type Platform = Schema<'Platform'>
export type ConnectionField = Platform['connection_fields'][number]
/** A value the person pastes (for example Trello's API key and token); `secret` ones are masked. */
export type CredentialField = Platform['credential_fields'][number]

export type Integration = Schema<'Integration'>
export type IntegrationStatus = Integration['status']
/** What stops if an integration goes, said in the confirmation. */
export type IntegrationUsage = Answer<'/v1/integrations/{id}/usage', 'get'>
export type ConnectStart = Schema<'ConnectStart'>
export type ResumeOutcome = Answer<'/v1/integrations/{id}/resume', 'post'>

export type Tool = Schema<'Tool'>
export type Effect = Tool['effect']
export type ToolFieldOptions = Schema<'FieldOptions'>
export type ToolFieldOption = ToolFieldOptions['options'][number]
/** A run's result in one line (docs/rest-api.md, "Tool steps"). */
export type RunSummary = Schema<'Summary'>
export type RunResult = Answer<'/v1/tools/{id}/run', 'post'>

const enc = encodeURIComponent

/** A tool step's address; its options are below it (see `fieldOptions`). */
export const toolPath = (id: string) => `/v1/tools/${enc(id)}`

/** A field's options below a declaration's address (`/v1/tools/{id}` or `/v1/triggers/{id}`). */
const fieldOptions = (base: string, field: string, params: Record<string, string>, signal?: AbortSignal) =>
  request<ToolFieldOptions>(
    'GET',
    `${base}/options/${enc(field)}?${new URLSearchParams(params)}`,
    undefined,
    { signal },
  )

export const api = {
  signIn: (apiKey: string) =>
    request<void>('POST', '/v1/session', { api_key: apiKey }, { notifyUnauthenticated: false }),
  signOut: () => request<void>('DELETE', '/v1/session', undefined, { notifyUnauthenticated: false }),
  me: (opts?: RequestOptions) => request<Me>('GET', '/v1/me', undefined, opts),

  listApiKeys: () => request<{ api_keys: ApiKey[] }>('GET', '/v1/api-keys').then((r) => r.api_keys),
  createApiKey: (name: string) => request<CreatedApiKey>('POST', '/v1/api-keys', { name }),
  deleteApiKey: (id: string) => request<void>('DELETE', `/v1/api-keys/${enc(id)}`),

  listPlatforms: () => request<{ platforms: Platform[] }>('GET', '/v1/platforms').then((r) => r.platforms),

  /** One page of integrations, oldest first, found by words of the account name (docs/rest-api.md, "Lists are paged"). */
  integrationsPage: (
    params: { q?: string; cursor?: string | null; platform?: string; limit?: number } = {},
  ) => {
    const query = new URLSearchParams()
    if (params.q) query.set('q', params.q)
    if (params.cursor) query.set('cursor', params.cursor)
    if (params.platform) query.set('platform', params.platform)
    if (params.limit) query.set('limit', String(params.limit))
    const qs = query.toString()
    return request<{ integrations: Integration[]; next_cursor: string | null }>(
      'GET',
      `/v1/integrations${qs ? `?${qs}` : ''}`,
    )
  },
  getIntegration: (id: string) => request<Integration>('GET', `/v1/integrations/${enc(id)}`),
  connect: (platform: string, fields: Record<string, string>) =>
    request<ConnectStart>('POST', '/v1/integrations/connect', { platform, fields }),
  /** Pasted credentials, checked with the platform at once. They travel only in this request's body. */
  connectWithCredentials: (
    platform: string,
    fields: Record<string, string>,
    credentials: Record<string, string>,
  ) => request<Integration>('POST', '/v1/integrations', { platform, fields, credentials }),
  /** Where to create the missing value, given the query from credentialHelpQuery (for Trello: the token page of a key). */
  credentialHelp: (platform: string, query: string, signal?: AbortSignal) =>
    request<Answer<'/v1/platforms/{id}/credential-help', 'get'>>(
      'GET',
      `/v1/platforms/${enc(platform)}/credential-help?${query}`,
      undefined,
      { signal },
    ),
  reconnect: (id: string) => request<ConnectStart>('POST', `/v1/integrations/${enc(id)}/reconnect`),
  /** Reconnects with new pasted credentials, which must be the same account's. */
  replaceCredentials: (id: string, credentials: Record<string, string>) =>
    request<Integration>('PUT', `/v1/integrations/${enc(id)}/credentials`, { credentials }),
  disconnect: (id: string) => request<Integration>('POST', `/v1/integrations/${enc(id)}/disconnect`),
  deleteIntegration: (id: string) => request<void>('DELETE', `/v1/integrations/${enc(id)}`),
  integrationUsage: (id: string) => request<IntegrationUsage>('GET', `/v1/integrations/${enc(id)}/usage`),
  resumeTriggers: (id: string) => request<ResumeOutcome>('POST', `/v1/integrations/${enc(id)}/resume`),

  searchTools: (q: string, signal?: AbortSignal) =>
    request<{ tools: Tool[] }>('GET', q.trim() ? `/v1/tools?q=${enc(q.trim())}` : '/v1/tools', undefined, {
      signal,
    }).then((r) => r.tools),
  getTool: (id: string) => request<Tool>('GET', `/v1/tools/${enc(id)}`),
  runTool: (id: string, integration: string, input: Record<string, unknown>) =>
    request<RunResult>('POST', `/v1/tools/${enc(id)}/run`, { integration, input }),
  /** `params` holds integration, q, cursor and the values of the fields the options depend on. */
  toolOptions: (id: string, field: string, params: Record<string, string>, signal?: AbortSignal) =>
    fieldOptions(toolPath(id), field, params, signal),
  fieldOptions,
}
