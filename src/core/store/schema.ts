import type { ColumnType } from 'kysely'

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

export interface SessionsTable {
  id_hash: string
  user_id: string
  created_at: DefaultNow
  expires_at: Timestamp
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

export interface Schema {
  users: UsersTable
  api_keys: ApiKeysTable
  sessions: SessionsTable
  integrations: IntegrationsTable
  connect_sessions: ConnectSessionsTable
  settings: SettingsTable
  rate_events: RateEventsTable
  rate_blocks: RateBlocksTable
  leases: LeasesTable
}
