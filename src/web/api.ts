// Fetch wrapper for the Switchyard REST API (docs/rest-api.md). Every failure becomes an ApiError
// carrying the server's application/problem+json body, so pages can show field errors and
// troubleshooting rules without parsing responses themselves.

import { ERROR_CODES, type ErrorCode } from '../core/errors.ts'

/**
 * The server's error codes (src/core/errors.ts, docs/errors.md), plus the client's own for a request
 * that got no answer or an answer without a code.
 */
export type ProblemCode = ErrorCode | 'network_error' | 'server_error' | 'error'

export interface FieldError {
  field: string
  message: string
}

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

// ---- Resources -----------------------------------------------------------------------------

export type Plan = 'free' | 'pro' | 'enterprise'
export interface Me {
  id: string
  email: string
  name: string | null
  plan: Plan | string
  /** `admin` may manage users (the Users page). */
  role?: 'admin' | 'member' | string
  /** Whether a password is set: changing it then needs the current one (the Account page). */
  has_password?: boolean
}

export interface ApiKey {
  id: string
  name: string
  prefix: string
  created_at: string
  last_used_at: string | null
}
export interface CreatedApiKey {
  id: string
  name: string
  prefix: string
  key: string
}

export interface ConnectionField {
  name: string
  label: string
  help?: string
  example?: string
  json_schema?: Record<string, unknown>
}
/** A value the person pastes (for example Trello's API key and token); `secret` ones are masked. */
export interface CredentialField {
  name: string
  label: string
  help?: string
  secret?: boolean
}
export interface Platform {
  id: string
  title: string
  kind: string
  /** `not_configured`: the deployment lacks the platform's OAuth client (see `missing_settings`). */
  mode: 'sandbox' | 'live' | 'not_configured' | string
  missing_settings?: string[]
  /** In sandbox mode, the sandbox's home page (make changes as another person, add webhooks); else null. */
  sandbox_home?: string | null
  connection_fields: ConnectionField[]
  /** `authorize` (the Connect button: OAuth) and, for platforms that take pasted values, `credentials`. */
  connect_methods?: string[]
  credential_fields?: CredentialField[]
  /** `popup` when the platform's authorize page is meant for a pop-up window (Vercel), `page` otherwise. */
  authorize_in?: 'popup' | 'page' | string
}

export type IntegrationStatus = 'active' | 'needs_reconnection' | 'disconnected'
export interface Integration {
  id: string
  platform: string
  account_name: string
  external_id: string | null
  status: IntegrationStatus | string
  /** How it was connected, so Reconnect can offer the same way. */
  connected_with: 'authorization' | 'credentials'
  fields: Record<string, unknown>
  /** Triggers its disconnection paused: after reconnecting, the page offers to resume them. */
  paused_triggers?: number
  created_at: string
  updated_at: string
}
/** What stops if an integration goes, said in the confirmation. */
export interface IntegrationUsage {
  active_triggers: number
  agent_steps: number
  paused_triggers: number
  summary: string | null
}
export interface ConnectStart {
  connect_url: string
  expires_at: string
}

export type Effect = 'read' | 'write' | 'delete'
export interface Tool {
  id: string
  title: string
  description: string
  platform: string
  kind: string
  effect: Effect | string
  legacy: boolean
  /** The question to ask before running (delete steps and hard-to-undo writes). */
  confirm?: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  /** Input fields with options to choose from, and the fields each one's options depend on. */
  fieldOptions?: Record<string, { dependsOn: string[] }>
}

export interface ToolFieldOption {
  value: string | number
  label: string
  description?: string
}

export interface ToolFieldOptions {
  options: ToolFieldOption[]
  next_cursor: string | null
}

/** A run's result in one line (docs/rest-api.md, "Tool steps"). */
export interface RunSummary {
  text: string
  url?: string
  tone?: 'error'
}

export interface RunResult {
  output: unknown
  /** Absent from servers older than summaries; null for steps that declare none. */
  summary?: RunSummary | null
}

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

  listIntegrations: () =>
    request<{ integrations: Integration[] }>('GET', '/v1/integrations').then((r) => r.integrations),
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
    request<{ url: string | null }>(
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
  resumeTriggers: (id: string) =>
    request<{ resumed: string[]; failed: Array<{ id: string; message: string }> }>(
      'POST',
      `/v1/integrations/${enc(id)}/resume`,
    ),

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
