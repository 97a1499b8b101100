import type { ColumnType, Kysely } from 'kysely'

type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>
/** A timestamp the database fills in by default. */
type DefaultNow = ColumnType<Date, Date | string | undefined, Date | string>

export type Plan = 'free' | 'pro' | 'enterprise'
export type Role = 'admin' | 'member'
export type IntegrationStatus = 'active' | 'needs_reconnection' | 'disconnected'
export type ConnectedWith = 'authorization' | 'credentials'

export interface UsersTable {
  id: string
  email: string
  name: string
  plan: Plan
  /** admin: may manage users; member: only their own integrations and keys. */
  role: ColumnType<Role, Role | undefined, Role>
  created_at: DefaultNow
  /** scrypt hash of the person's password (core/access/passwords.ts); null until one is set. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>
}

export interface ApiKeysTable {
  id: string
  user_id: string
  name: string
  /** Public, non-secret part of the key used to find the row; the rest is only stored hashed. */
  prefix: string
  hash: string
  created_at: DefaultNow
  last_used_at: Timestamp | null
}

export type SignInMethod = 'api_key' | 'password' | 'link' | 'sso'

export interface SessionsTable {
  id_hash: string
  /** Public id, to list and end a session without knowing its secret. */
  id: string
  user_id: string
  created_at: DefaultNow
  expires_at: Timestamp
  method: ColumnType<SignInMethod, SignInMethod | undefined, SignInMethod>
  user_agent: ColumnType<string, string | undefined, string>
  last_seen_at: DefaultNow
}

export interface PasswordLinksTable {
  token_hash: string
  user_id: string
  purpose: 'invitation' | 'reset'
  created_by: string | null
  created_at: DefaultNow
  expires_at: Timestamp
  used_at: Timestamp | null
}

export interface SsoFlowsTable {
  state_hash: string
  code_verifier: string
  nonce: string
  /** Where the person goes once signed in: a path of this site only. */
  next_path: string
  expires_at: Timestamp
}

export interface SignInFailuresTable {
  /** `account:<email>` or `client:<address>`. */
  key: string
  failures: number
  last_failure_at: Timestamp
}

export interface IntegrationsTable {
  id: string
  user_id: string
  platform: string
  external_id: string
  account_name: string
  status: IntegrationStatus
  /** Non-secret connection fields the user entered (for example a subdomain). */
  fields: Json<Record<string, string>>
  /** How the credential was obtained: the platform's authorization page, or credentials the user pasted. */
  connected_with: ColumnType<ConnectedWith, ConnectedWith | undefined, ConnectedWith>
  /** AES-256-GCM sealed credential record; null once disconnected. */
  credentials: string | null
  /** When the access token expires; null for long-lived tokens. */
  expires_at: Timestamp | null
  created_at: DefaultNow
  updated_at: Timestamp
}

export interface ConnectSessionsTable {
  /** sha256 of the OAuth `state`: the state itself never rests in the database. */
  state_hash: string
  /** sha256 of the one-time start token carried by the connect URL. */
  start_hash: string
  /** sha256 of the browser-binding cookie, set when the browser opens the connect URL. */
  binding_hash: string | null
  user_id: string
  platform: string
  integration_id: string | null
  fields: Json<Record<string, string>>
  /** Sealed PKCE verifier and any other secret flow data. */
  secret: string
  redirect_uri: string
  created_at: DefaultNow
  expires_at: Timestamp
}

export interface SettingsTable {
  key: string
  value: string
}

export interface RateEventsTable {
  key: string
  /** Epoch ms, as text: bigint columns come back from the driver as strings. */
  at_ms: string
}

export interface RateBlocksTable {
  key: string
  until_ms: string
}

/** Named leases held across processes (src/core/store/leases.ts); a row outlives its holder by at most its expiry. */
export interface LeasesTable {
  key: string
  holder: string
  expires_at: Date
}

export type RunStatus =
  | 'queued'
  | 'running'
  | 'succeeded'
  | 'failed'
  | 'cancelled'
  | 'waiting_for_approval'
  | 'budget_exhausted'
  | 'escalated'
export type RunStartedBy = 'trigger' | 'person' | 'api' | 'rerun'
export type StepStatus = 'running' | 'succeeded' | 'failed' | 'skipped'
export type TimelineKind = 'step' | 'tool_call' | 'delivery' | 'model_call'
export type SubscriptionStatus = 'inactive' | 'active' | 'paused'
export type WebhookStatus = 'pending' | 'active' | 'removing' | 'remove_failed'

export interface AgentsTable {
  id: string
  user_id: string
  name: string
  current_version: number
  /** Sealed Standard Webhooks secret (`whsec_…`) that signs deliveries to an external agent. */
  signing_secret: string | null
  created_at: DefaultNow
  updated_at: DefaultNow
}

export interface AgentVersionsTable {
  agent_id: string
  version: number
  definition: Json<unknown>
  created_at: DefaultNow
}

/** Which integrations each agent's current version names (migration 0019; core/agents/integration-uses.ts). */
export interface AgentIntegrationUsesTable {
  agent_id: string
  user_id: string
  ref: string
  platform: string
  kind: 'step' | 'tool' | 'external'
  uses: number
}

export interface WebhooksTable {
  id: string
  user_id: string
  integration_id: string
  platform: string
  model_key: string
  managed: boolean
  /** The unguessable last segment of the intake address. */
  token: string
  remote_id: string | null
  /** Sealed secret the platform signs this webhook's deliveries with, where it has one per webhook. */
  secret: string | null
  status: WebhookStatus
  last_error: string | null
  cleanup_attempts: ColumnType<number, number | undefined, number>
  cleanup_at: Timestamp | null
  created_at: DefaultNow
  updated_at: DefaultNow
}

export interface SubscriptionsTable {
  id: string
  user_id: string
  agent_id: string
  trigger_id: string
  integration_id: string
  config: Json<Record<string, unknown>>
  mapping: Json<Record<string, string>>
  status: SubscriptionStatus
  /** Why the service paused it (`integration_disconnected`, `plan_required`); null unless paused. */
  paused_reason: ColumnType<string | null, string | null | undefined, string | null>
  start_on_own_changes: ColumnType<boolean, boolean | undefined, boolean>
  poll_cursor: Json<Record<string, unknown> | null> | null
  next_poll_at: Timestamp | null
  /** The claim of the poll in hand (a fencing token): only it may write the cursor. */
  poll_claim: ColumnType<string | null, string | null | undefined, string | null>
  last_event_at: Timestamp | null
  last_error: string | null
  last_error_at: Timestamp | null
  created_at: DefaultNow
  updated_at: DefaultNow
}

export interface SubscriptionWebhooksTable {
  subscription_id: string
  webhook_id: string
}

/** The token of a webhook removed on purpose: its address answers 410. */
export interface RetiredHooksTable {
  token: string
  retired_at: DefaultNow
}

export interface EventsTable {
  id: string
  source: string
  dedupe_key: string
  type: string
  received_at: DefaultNow
}

export interface RunsTable {
  id: string
  user_id: string
  agent_id: string
  agent_version: number
  started_by: RunStartedBy
  subscription_id: string | null
  event_id: string | null
  event: Json<unknown> | null
  rerun_of: string | null
  test: ColumnType<boolean, boolean | undefined, boolean>
  inputs: Json<Record<string, unknown>>
  status: RunStatus
  result: Json<unknown> | null
  error: Json<unknown> | null
  /** sha256 of the run token an external agent calls with; the token itself is sealed beside it, to deliver it again on a retry. */
  token_hash: string | null
  token_sealed: string | null
  executions: ColumnType<number, number | undefined, number>
  /** Executions that ended because their process stopped renewing the lease (crashed, killed, stalled). */
  lapses: ColumnType<number, number | undefined, number>
  available_at: DefaultNow
  lease_holder: string | null
  lease_expires_at: Timestamp | null
  cancel_requested: ColumnType<boolean, boolean | undefined, boolean>
  /** A model agent's run: budget extensions and tools approved for the rest of the run. */
  model_state: ColumnType<unknown, string | null | undefined, string | null>
  created_at: DefaultNow
  started_at: Timestamp | null
  finished_at: Timestamp | null
}

export interface RunStepsTable {
  run_id: string
  seq: number
  key: string
  kind: TimelineKind
  tool_id: string | null
  integration_id: string | null
  input: Json<unknown> | null
  output: Json<unknown> | null
  summary: Json<unknown> | null
  error: Json<unknown> | null
  status: StepStatus
  attempts: Json<unknown[]>
  started_at: DefaultNow
  finished_at: Timestamp | null
}

/** Each owner's runs waiting in the queue, kept by triggers on runs (migration 0021, agents/queue-cap.ts). */
export interface QueuedRunCountsTable {
  user_id: string
  /** bigint: the driver returns it as a string on PostgreSQL. */
  waiting: string | number
}

/** One recent delivery (or poll) and its outcome, per subscription: a bounded ring per source. */
export interface TriggerDeliveriesTable {
  id: string
  /** `webhook:<webhook id>` or `poll:<subscription id>`, as events' sources are. */
  source: string
  user_id: string
  received_at: Timestamp
  outcome: string
  reason: string | null
  event_type: string | null
  event_key: string | null
  /** Per subscription id: `{outcome, reason?, run_id?}`. */
  subscriptions: Json<Record<string, { outcome: string; reason?: string; run_id?: string }>>
}

export type ModelProtocol = 'openai-chat' | 'openai-responses' | 'anthropic' | 'openai-compatible'

export interface ModelConnectionsTable {
  id: string
  user_id: string
  name: string
  protocol: ModelProtocol
  base_url: string
  /** AES-256-GCM sealed key; null for a server that takes none. */
  api_key: string | null
  /** An admin's connection every user may use (never read). */
  shared: ColumnType<boolean, boolean | undefined, boolean>
  created_at: DefaultNow
}

/** One version of an admin's prices over the shipped table: the whole set as of that change. */
export interface PriceOverridesTable {
  version: number
  prices: Json<unknown>
  created_by: string | null
  created_at: DefaultNow
}

export interface PlanCeilingsTable {
  plan: Plan
  ceilings: Json<unknown>
  updated_by: string | null
  updated_at: DefaultNow
}

/** `owner` is a user's id, or '*' for the installation's. */
export interface ApprovalWebhooksTable {
  owner: string
  url: string
  /** AES-256-GCM sealed Standard Webhooks secret. */
  secret: string
  created_by: string
  created_at: DefaultNow
}

/** One approval webhook delivery, tried until it is delivered or its schedule runs out. */
export interface ApprovalWebhookDeliveriesTable {
  /** Also the `webhook-id` of every try, so a receiver can drop a repeat. */
  id: string
  approval_id: string
  /** The webhook's owner in approval_webhooks: a user id, or '*' for the installation's. */
  owner: string
  body: string
  status: 'pending' | 'delivered' | 'failed'
  attempts: ColumnType<number, number | undefined, number>
  next_at: Timestamp
  lease_holder: string | null
  lease_until: Timestamp | null
  last_status: number | null
  last_error: string | null
  created_at: DefaultNow
}

export type ApprovalStatus = 'pending' | 'decided' | 'expired' | 'cancelled'

export interface ApprovalsTable {
  id: string
  run_id: string
  user_id: string
  /** The timeline entry of the model answer whose calls wait. */
  model_seq: number
  status: ApprovalStatus
  calls: Json<unknown>
  decisions: ColumnType<unknown, string | undefined, string>
  decided_by: string | null
  created_at: DefaultNow
  expires_at: Timestamp
  decided_at: Timestamp | null
}

export interface Schema {
  users: UsersTable
  api_keys: ApiKeysTable
  sessions: SessionsTable
  password_links: PasswordLinksTable
  sign_in_failures: SignInFailuresTable
  sso_flows: SsoFlowsTable
  integrations: IntegrationsTable
  connect_sessions: ConnectSessionsTable
  settings: SettingsTable
  rate_events: RateEventsTable
  rate_blocks: RateBlocksTable
  leases: LeasesTable
  agents: AgentsTable
  agent_versions: AgentVersionsTable
  agent_integration_uses: AgentIntegrationUsesTable
  webhooks: WebhooksTable
  subscriptions: SubscriptionsTable
  subscription_webhooks: SubscriptionWebhooksTable
  retired_hooks: RetiredHooksTable
  events: EventsTable
  runs: RunsTable
  queued_run_counts: QueuedRunCountsTable
  run_steps: RunStepsTable
  trigger_deliveries: TriggerDeliveriesTable
  model_connections: ModelConnectionsTable
  approvals: ApprovalsTable
  price_overrides: PriceOverridesTable
  plan_ceilings: PlanCeilingsTable
  approval_webhooks: ApprovalWebhooksTable
  approval_webhook_deliveries: ApprovalWebhookDeliveriesTable
}

/** The typed database every store module queries. */
export type Db = Kysely<Schema>
