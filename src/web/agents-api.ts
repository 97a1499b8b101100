// Agents, runs, triggers and subscriptions over REST (docs/rest-api.md; issue 10's contract).
import { request } from './api.ts'
import type { Answer, RequestBody, Schema } from './api-shapes.ts'

type AgentSchema = Schema<'Agent'>
export type VariableType = Schema<'AgentInput'>['inputs'] extends Array<infer V> | undefined
  ? V extends { type: infer T }
    ? T
    : never
  : never
export const VARIABLE_TYPES: readonly VariableType[] = ['string', 'number', 'boolean', 'object', 'array']

export type InputVariable = NonNullable<Schema<'AgentInput'>['inputs']>[number]
export type AgentStep = NonNullable<Schema<'AgentInput'>['steps']>[number]
export type OnFailure = NonNullable<AgentStep['on_failure']>
export type AgentInput = Schema<'AgentInput'>
export type Agent = AgentSchema
export type AgentVersion = Answer<'/v1/agents/{id}/versions', 'get'>['versions'][number]

export type Run = Schema<'Run'>
export type RunStatus = Run['status']
export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled']
export type StartedBy = Run['started_by']
export type Attempt = Schema<'Attempt'>
export type TimelineEntry = Schema<'TimelineEntry'>
export type RunPage = Answer<'/v1/runs', 'get'>

export type Trigger = Schema<'Trigger'>
/** What "Send sample event" did: the intake's answer, and the runs it started with their mapped inputs. */
export type SampleSent = Answer<'/v1/subscriptions/{id}/send-sample', 'post'>

export type Subscription = Schema<'Subscription'>
export type SubscriptionPage = Answer<'/v1/agents/{id}/subscriptions', 'get'>
export type SubscriptionInput = RequestBody<'/v1/agents/{id}/subscriptions', 'post'>
export type SubscriptionChange = RequestBody<'/v1/subscriptions/{id}', 'patch'>
export type MappingPreview = Answer<'/v1/subscriptions/{id}/preview', 'post'>
export type SubscriptionTest = Answer<'/v1/subscriptions/{id}/test', 'post'>
export type SubscriptionHealth = Schema<'SubscriptionHealth'>
/** One recent delivery or poll as a subscription saw it. */
export type SubscriptionEvent = Schema<'SubscriptionEvent'>

export type RunQuery = {
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
  /** One page of agents, newest first, found by words of their name (docs/api.md, "Lists are paged"). */
  page: (params: { q?: string; cursor?: string | null; limit?: number } = {}) =>
    request<{ agents: Agent[]; next_cursor: string | null }>('GET', `/v1/agents${query(params)}`),
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

  /** One page of the agent's triggers, oldest first (docs/rest-api.md, "Lists are paged"). */
  subscriptions: (agentId: string, params: { cursor?: string | null; limit?: number } = {}) =>
    request<SubscriptionPage>(
      'GET',
      `/v1/agents/${enc(agentId)}/subscriptions${query({ cursor: params.cursor, limit: params.limit })}`,
    ),
  subscribe: (agentId: string, input: SubscriptionInput) =>
    request<Subscription>('POST', `/v1/agents/${enc(agentId)}/subscriptions`, input),
  sendSample: (id: string) => request<SampleSent>('POST', `/v1/subscriptions/${enc(id)}/send-sample`, {}),
  changeSubscription: (id: string, change: SubscriptionChange) =>
    request<Subscription>('PATCH', `/v1/subscriptions/${enc(id)}`, change),
  removeSubscription: (id: string) => request<void>('DELETE', `/v1/subscriptions/${enc(id)}`),
  activate: (id: string) => request<Subscription>('POST', `/v1/subscriptions/${enc(id)}/activate`),
  deactivate: (id: string) => request<Subscription>('POST', `/v1/subscriptions/${enc(id)}/deactivate`),
  /** Triggers a lowered plan paused that the plan includes again (offered for resume after an upgrade). */
  planResumable: (agentId: string) =>
    request<{ plan_resumable?: string[] }>('GET', `/v1/subscriptions?agent_id=${enc(agentId)}`).then(
      (r) => r.plan_resumable ?? [],
    ),
  resumePlan: () =>
    request<{ resumed: string[]; failed: Array<{ id: string; message: string }> }>(
      'POST',
      '/v1/subscriptions/resume',
    ),
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
}
