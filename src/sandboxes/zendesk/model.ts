/** In-memory records of the Zendesk sandbox. Times are epoch milliseconds; presenters format them. */

export const ROLES = ['admin', 'agent', 'end-user'] as const
export type Role = (typeof ROLES)[number]

/** Plans and their account-wide API limits in requests per minute (platform-apis.md §1.8, Z-RLPLAN). */
export const PLAN_REQUESTS_PER_MINUTE = {
  team: 200,
  growth: 400,
  professional: 400,
  enterprise: 700,
  high_volume: 2500,
} as const
export type Plan = keyof typeof PLAN_REQUESTS_PER_MINUTE
export const PLANS = Object.keys(PLAN_REQUESTS_PER_MINUTE) as Plan[]

export const TICKET_STATUSES = ['new', 'open', 'pending', 'hold', 'solved', 'closed'] as const
export type TicketStatus = (typeof TICKET_STATUSES)[number]
export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const
export type TicketPriority = (typeof TICKET_PRIORITIES)[number]
export const TICKET_TYPES = ['problem', 'incident', 'question', 'task'] as const
export type TicketType = (typeof TICKET_TYPES)[number]

export interface Via {
  channel: string
  source: { from: Record<string, unknown>; to: Record<string, unknown>; rel: string | null }
}

export interface User {
  id: number
  name: string
  email: string
  role: Role
  password: string | null
  organizationId: number | null
  phone: string | null
  externalId: string | null
  tags: string[]
  timeZone: string
  locale: string
  active: boolean
  suspended: boolean
  verified: boolean
  notes: string
  details: string
  alias: string
  signature: string | null
  userFields: Record<string, unknown>
  lastLoginAt: number | null
  createdAt: number
  updatedAt: number
}

export interface Organization {
  id: number
  name: string
  domainNames: string[]
  details: string
  notes: string
  tags: string[]
  externalId: string | null
  groupId: number | null
  sharedTickets: boolean
  sharedComments: boolean
  organizationFields: Record<string, unknown>
  createdAt: number
  updatedAt: number
}

export interface CustomFieldValue {
  id: number
  value: unknown
}

export interface Ticket {
  id: number
  subject: string | null
  rawSubject: string | null
  description: string
  status: TicketStatus
  priority: TicketPriority | null
  type: TicketType | null
  requesterId: number
  submitterId: number
  assigneeId: number | null
  organizationId: number | null
  groupId: number | null
  collaboratorIds: number[]
  followerIds: number[]
  emailCcIds: number[]
  tags: string[]
  customFields: CustomFieldValue[]
  externalId: string | null
  dueAt: number | null
  problemId: number | null
  isPublic: boolean
  via: Via
  brandId: number
  createdAt: number
  updatedAt: number
}

export interface Comment {
  id: number
  ticketId: number
  auditId: number
  authorId: number
  body: string
  htmlBody: string
  plainBody: string
  public: boolean
  via: Via
  createdAt: number
  /** Files attached through `comment.uploads` (uploads.ts). */
  attachments?: Attachment[]
}

/** An uploaded file's record; its bytes are kept apart (uploads.ts). */
export interface Attachment {
  id: number
  fileName: string
  contentType: string
  size: number
  /** The unguessable part of `content_url`. */
  contentToken: string
  /** Account base URL the file was uploaded through: its URLs are built on it. */
  base: string
}

export type AuditEvent =
  | { id: number; type: 'Create'; field_name: string; value: unknown }
  | { id: number; type: 'Change'; field_name: string; value: unknown; previous_value: unknown }
  | { id: number; type: 'Comment'; commentId: number }

export interface Audit {
  id: number
  ticketId: number
  authorId: number
  via: Via
  events: AuditEvent[]
  createdAt: number
}

export interface Webhook {
  id: string
  name: string
  description: string | null
  endpoint: string
  httpMethod: string
  requestFormat: string
  status: 'active' | 'inactive'
  subscriptions: string[]
  authentication: Record<string, unknown> | null
  customHeaders: Record<string, string>
  externalSource: Record<string, unknown> | null
  signingSecret: string
  createdBy: string
  updatedBy: string
  createdAt: number
  updatedAt: number
}

export interface ApiToken {
  id: number
  token: string
  description: string
  active: boolean
  createdAt: number
}

export interface DeletedTicket {
  ticket: Ticket
  comments: Comment[]
  audits: Audit[]
  deletedAt: number
  actorId: number
}

export interface Account {
  id: number
  subdomain: string
  plan: Plan
  /** Overrides the plan's requests-per-minute limit (set through the control API). */
  rateLimitPerMinute: number | null
  brandId: number
  users: Map<number, User>
  organizations: Map<number, Organization>
  tickets: Map<number, Ticket>
  comments: Map<number, Comment[]>
  audits: Map<number, Audit[]>
  webhooks: Map<string, Webhook>
  apiTokens: Map<string, ApiToken>
  /** Soft-deleted tickets, kept until permanently deleted (Zendesk keeps them 30 days). */
  deletedTickets: Map<number, DeletedTicket>
  /** Ticket ids are per account and sequential, as Zendesk's are. */
  nextTicketId: number
  createdAt: number
}

export type RedirectPolicy = { kind: 'exact'; uris: string[] } | { kind: 'loopback' }

export interface OAuthClient {
  identifier: string
  name: string
  secret: string | null
  kind: 'confidential' | 'public'
  redirect: RedirectPolicy
  /** null: a global client usable on every account. */
  subdomain: string | null
}

export interface AccessToken {
  token: string
  subdomain: string
  userId: number
  clientId: string
  scopes: string[]
  expiresAt: number | null
  revoked: boolean
  createdAt: number
}

export interface RefreshToken {
  token: string
  subdomain: string
  userId: number
  clientId: string
  scopes: string[]
  /** Lifetime given to access tokens minted from this refresh token, in seconds. */
  accessTokenLifetimeS: number
  expiresAt: number
  used: boolean
  revoked: boolean
}

export interface AuthorizationCode {
  code: string
  subdomain: string
  userId: number
  clientId: string
  redirectUri: string
  scopes: string[]
  codeChallenge: string | null
  expiresAt: number
  used: boolean
  /** Tokens issued from this code; revoked if the code is replayed (RFC 6749 §4.1.2). */
  issuedTokens: string[]
}

/** A signed-in user on the authorize page, carried by cookie or by a hidden form field. */
export interface BrowserSession {
  id: string
  subdomain: string
  userId: number
  expiresAt: number
}
