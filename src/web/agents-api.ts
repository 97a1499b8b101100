// Agents, runs, triggers and subscriptions over REST (docs/rest-api.md; issue 10's contract).
import { request, type FieldError, type RunSummary } from './api.ts'

export type VariableType = 'string' | 'number' | 'boolean' | 'object' | 'array'
export const VARIABLE_TYPES: readonly VariableType[] = ['string', 'number', 'boolean', 'object', 'array']

export interface InputVariable {
  name: string
  type: VariableType
  required: boolean
  description?: string
}

export type OnFailure = 'stop' | 'continue'

export interface AgentStep {
  key: string
  tool: string
  integration: string
  input: Record<string, unknown>
  condition?: string
  on_failure: OnFailure
}

export interface AgentInput {
  name: string
  description?: string
  inputs: InputVariable[]
  kind: 'steps' | 'external'
  steps?: AgentStep[]
  output?: Record<string, string>
  external?: { url: string }
}

export interface Agent extends AgentInput {
  id: string
  version: number
  created_at: string
  updated_at: string
  steps?: Array<AgentStep & { integration_name?: string | null; tool_title?: string | null }>
  /** Only in the answer that creates an external agent (or rotates its secret): shown once. */
  signing_secret?: string
}

export interface AgentVersion {
  version: number
  created_at: string
}

export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'
export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled']
export type StartedBy = 'trigger' | 'person' | 'api' | 'rerun'

export interface Attempt {
  at: string
  outcome: 'succeeded' | 'failed'
  error?: string
  status?: number
  duration_ms: number
  retry_in_ms?: number
}

export interface TimelineEntry {
  seq: number
  key: string
  kind: 'step' | 'tool_call' | 'delivery'
  tool_id: string | null
  tool_title: string | null
  integration_id: string | null
  integration_name: string | null
  status: 'running' | 'succeeded' | 'failed' | 'skipped'
  input: unknown
  output: unknown
  /** Which of input and output the store keeps cut (with a marker where it was cut). */
  cut?: Array<'input' | 'output'>
  summary: RunSummary | null
  error: { code: string; message: string } | null
  attempts: Attempt[]
  started_at: string
  finished_at: string | null
  duration_ms: number | null
}

export interface Run {
  id: string
  agent_id: string
  agent_name: string
  agent_version: number
  status: RunStatus
  started_by: StartedBy
  subscription_id: string | null
  trigger_id: string | null
  /** Not in the contract's first stage; shown when the server sends it. */
  trigger_title?: string | null
  test: boolean
  rerun_of: string | null
  inputs: Record<string, unknown>
  event: Record<string, unknown> | null
  result: unknown
  error: { code: string; message: string } | null
  created_at: string
  started_at: string | null
  finished_at: string | null
  duration_ms: number | null
  timeline?: TimelineEntry[]
}

export interface RunPage {
  runs: Run[]
  next_cursor: string | null
}

export interface Trigger {
  id: string
  title: string
  description: string
  platform: string
  kind: string
  mode: 'instant' | 'polled'
  configSchema: Record<string, unknown>
  eventSchema: Record<string, unknown>
  sample: Record<string, unknown>
  fieldOptions?: Record<string, { dependsOn: string[] }>
  requiredPlan: string | null
  /** Whether the signed-in person's plan allows it (absent from servers older than plan notes). */
  availableOnYourPlan?: boolean
  /** For platforms whose webhook the person sets up: the event names to tick there, and whether a sample can be sent. */
  manualWebhook?: { events: string[]; sendSample: boolean } | null
}

/** What "Send sample event" did: the intake's answer, and the runs it started with their mapped inputs. */
export interface SampleSent {
  status: number
  /** Switchyard signed the sample, not the platform: what it shows, and what it does not. */
  signed_by: 'switchyard'
  message: string
  answer: unknown
  runs: Array<{
    id: string
    status: string
    inputs: Record<string, unknown>
    error: { code: string; message: string } | null
  }>
}

export interface Subscription {
  id: string
  agent_id: string
  trigger_id: string
  trigger_title: string
  platform: string
  mode: 'instant' | 'polled'
  integration_id: string
  integration_name: string
  config: Record<string, unknown>
  mapping: Record<string, string>
  status: 'inactive' | 'active' | 'paused'
  /** Why the service paused it: integration_disconnected or plan_required. */
  paused_reason?: string | null
  /** The one verdict, the same as the CLI's and REST's (docs/triggers.md, "Health"). */
  health?: {
    verdict: 'healthy' | 'warning' | 'failing' | 'paused'
    reasons: Array<{ code: string; severity: string; message: string }>
  }
  start_on_own_changes: boolean
  /** Platforms whose webhooks the user sets up: the address to paste there (null for the others). */
  webhook_address?: string | null
  /** For those platforms: whether the secret the platform showed has been given. */
  webhook_secret_set?: boolean | null
  last_event_at: string | null
  last_error: string | null
  last_error_at: string | null
  created_at: string
  updated_at: string
}

export interface SubscriptionInput {
  trigger: string
  integration: string
  config: Record<string, unknown>
  mapping: Record<string, string>
  start_on_own_changes?: boolean
  /** The secret the platform shows for a webhook the user set up there (unmanaged platforms). */
  webhook_secret?: string | null
}

export interface MappingPreview {
  event: Record<string, unknown>
  inputs: Record<string, unknown>
  errors: FieldError[]
}

export interface SubscriptionTest extends MappingPreview {
  source: 'recent' | 'sample'
  run: Run | null
}

export interface SubscriptionHealth {
  /** The one verdict and its reasons, as REST words them (docs/triggers.md, "Health"). */
  verdict: 'healthy' | 'warning' | 'failing' | 'paused'
  reasons: Array<{ code: string; severity: string; message: string }>
  integration: { id: string; name: string; status: string; connected: boolean }
  webhooks: Array<{
    id?: string
    model_key: string
    remote_id: string | null
    status: string
    present: boolean | null
    last_error: string | null
    /** The intake address the platform delivers to. */
    address?: string
  }>
  last_event_at: string | null
  last_error: string | null
  last_error_at: string | null
  polled: boolean
  next_poll_at: string | null
  /** What the recent deliveries say: refusals (with what to do) and events the loop guard skipped. */
  deliveries?: {
    recent: number
    counts: Record<string, number>
    refused: { count: number; last_at: string; reason: string } | null
    skipped: { count: number; last_at: string; reason: string; option: string } | null
    last_poll_at: string | null
  }
}

/** One recent delivery or poll as a subscription saw it. */
export interface SubscriptionEvent {
  id: string
  received_at: string
  via: 'webhook' | 'poll'
  webhook_id: string | null
  outcome: string
  reason: string | null
  event_type: string | null
  event_id: string | null
  run_id: string | null
}

export interface RunQuery {
  agent_id?: string
  subscription_id?: string
  trigger_id?: string
  status?: string
  since?: string
  until?: string
  limit?: number
  cursor?: string
}

const enc = encodeURIComponent

const query = (params: Record<string, string | number | undefined | null>) => {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

/** A trigger's address; its options are below it, like a tool step's. */
export const triggerPath = (id: string) => `/v1/triggers/${enc(id)}`

export const agentsApi = {
  list: () => request<{ agents: Agent[] }>('GET', '/v1/agents').then((r) => r.agents),
  get: (id: string, version?: number) => request<Agent>('GET', `/v1/agents/${enc(id)}${query({ version })}`),
  versions: (id: string) =>
    request<{ versions: AgentVersion[] }>('GET', `/v1/agents/${enc(id)}/versions`).then((r) => r.versions),
  create: (input: AgentInput) => request<Agent>('POST', '/v1/agents', input),
  update: (id: string, input: AgentInput) => request<Agent>('PUT', `/v1/agents/${enc(id)}`, input),
  remove: (id: string) => request<void>('DELETE', `/v1/agents/${enc(id)}`),
  /** A new signing secret for an external agent; the old one stops working. Shown once. */
  rotateSecret: (id: string) =>
    request<{ signing_secret: string }>('POST', `/v1/agents/${enc(id)}/signing-secret`).then(
      (r) => r.signing_secret,
    ),
  start: (id: string, inputs: Record<string, unknown>) =>
    request<Run>('POST', `/v1/agents/${enc(id)}/runs`, { inputs }),

  runs: (q: RunQuery, signal?: AbortSignal) =>
    request<RunPage>('GET', `/v1/runs${query({ ...q })}`, undefined, { signal }),
  run: (id: string, signal?: AbortSignal) =>
    request<Run>('GET', `/v1/runs/${enc(id)}`, undefined, { signal }),
  cancel: (id: string) => request<Run>('POST', `/v1/runs/${enc(id)}/cancel`),
  rerun: (id: string) => request<Run>('POST', `/v1/runs/${enc(id)}/rerun`),

  triggers: (q = '', signal?: AbortSignal) =>
    request<{ triggers: Trigger[] }>('GET', `/v1/triggers${query({ q: q.trim() })}`, undefined, {
      signal,
    }).then((r) => r.triggers),
  trigger: (id: string) => request<Trigger>('GET', triggerPath(id)),

  subscriptions: (agentId: string) =>
    request<{ subscriptions: Subscription[] }>('GET', `/v1/agents/${enc(agentId)}/subscriptions`).then(
      (r) => r.subscriptions,
    ),
  subscribe: (agentId: string, input: SubscriptionInput) =>
    request<Subscription>('POST', `/v1/agents/${enc(agentId)}/subscriptions`, input),
  sendSample: (id: string) => request<SampleSent>('POST', `/v1/subscriptions/${enc(id)}/send-sample`, {}),
  changeSubscription: (id: string, change: Partial<Omit<SubscriptionInput, 'trigger'>>) =>
    request<Subscription>('PATCH', `/v1/subscriptions/${enc(id)}`, change),
  removeSubscription: (id: string) => request<void>('DELETE', `/v1/subscriptions/${enc(id)}`),
  activate: (id: string) => request<Subscription>('POST', `/v1/subscriptions/${enc(id)}/activate`),
  deactivate: (id: string) => request<Subscription>('POST', `/v1/subscriptions/${enc(id)}/deactivate`),
  preview: (
    id: string,
    body: { mapping?: Record<string, string>; event?: Record<string, unknown> },
    signal?: AbortSignal,
  ) => request<MappingPreview>('POST', `/v1/subscriptions/${enc(id)}/preview`, body, { signal }),
  test: (id: string, startRun = false) =>
    request<SubscriptionTest>('POST', `/v1/subscriptions/${enc(id)}/test`, { start_run: startRun }),
  health: (id: string) => request<SubscriptionHealth>('GET', `/v1/subscriptions/${enc(id)}/health`),
  events: (id: string) =>
    request<{ events: SubscriptionEvent[] }>('GET', `/v1/subscriptions/${enc(id)}/events`).then(
      (r) => r.events,
    ),
  pollNow: (id: string) => request<Subscription>('POST', `/v1/subscriptions/${enc(id)}/poll`),
  /** Triggers a lowered plan paused that the plan includes again (offered for resume after an upgrade). */
  planResumable: (agentId: string) =>
    request<{ plan_resumable: string[] }>('GET', `/v1/subscriptions?agent_id=${enc(agentId)}`).then(
      (r) => r.plan_resumable ?? [],
    ),
  resumePlan: () =>
    request<{ resumed: string[]; failed: Array<{ id: string; message: string }> }>(
      'POST',
      '/v1/subscriptions/resume',
    ),
}
