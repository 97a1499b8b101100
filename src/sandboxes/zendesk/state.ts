import type {
  AccessToken,
  Account,
  AuthorizationCode,
  BrowserSession,
  OAuthClient,
  Organization,
  Plan,
  RefreshToken,
  Role,
  User,
} from './model.ts'

/**
 * Id counters. Zendesk ids are integers; users, organizations, comments and audits come from
 * global sequences (so they never collide across accounts), while ticket ids are per account
 * (`Account.nextTicketId`). The starting points only make the kinds easy to tell apart.
 */
const ID_STARTS = {
  account: 100,
  user: 1000,
  organization: 5000,
  brand: 9000,
  comment: 70000,
  audit: 90000,
  event: 200000,
  apiToken: 300,
  attachment: 400000,
} as const
export type IdKind = keyof typeof ID_STARTS

export const SUBDOMAIN_PATTERN = /^[a-z0-9][a-z0-9-]*$/
/** First path segments the sandbox reserves, so they can never name an account. */
export const RESERVED_SUBDOMAINS = new Set(['api', 'oauth', '_control', 'www'])

export interface NewUser {
  name: string
  email: string
  role: Role
  password?: string | null
  organizationId?: number | null
  phone?: string | null
  externalId?: string | null
  tags?: string[]
  timeZone?: string
  locale?: string
  verified?: boolean
  notes?: string
  details?: string
  alias?: string
  signature?: string | null
  userFields?: Record<string, unknown>
}

export interface NewOrganization {
  name: string
  domainNames?: string[]
  details?: string
  notes?: string
  tags?: string[]
  externalId?: string | null
}

/** Everything the sandbox remembers. `/_control/reset` replaces the whole store. */
export class SandboxStore {
  readonly accounts = new Map<string, Account>()
  readonly clients = new Map<string, OAuthClient>()
  readonly accessTokens = new Map<string, AccessToken>()
  readonly refreshTokens = new Map<string, RefreshToken>()
  readonly codes = new Map<string, AuthorizationCode>()
  readonly sessions = new Map<string, BrowserSession>()
  private readonly counters: Record<IdKind, number> = { ...ID_STARTS }

  nextId(kind: IdKind): number {
    this.counters[kind] += 1
    return this.counters[kind]
  }

  account(subdomain: string): Account | undefined {
    return this.accounts.get(subdomain.toLowerCase())
  }

  createAccount(subdomain: string, plan: Plan, now: number): Account {
    const account: Account = {
      id: this.nextId('account'),
      subdomain: subdomain.toLowerCase(),
      plan,
      rateLimitPerMinute: null,
      brandId: this.nextId('brand'),
      users: new Map(),
      organizations: new Map(),
      tickets: new Map(),
      comments: new Map(),
      audits: new Map(),
      webhooks: new Map(),
      apiTokens: new Map(),
      deletedTickets: new Map(),
      nextTicketId: 1,
      createdAt: now,
    }
    this.accounts.set(account.subdomain, account)
    return account
  }

  addUser(account: Account, input: NewUser, now: number): User {
    const user: User = {
      id: this.nextId('user'),
      name: input.name,
      email: input.email.toLowerCase(),
      role: input.role,
      password: input.password ?? null,
      organizationId: input.organizationId ?? null,
      phone: input.phone ?? null,
      externalId: input.externalId ?? null,
      tags: input.tags ?? [],
      timeZone: input.timeZone ?? 'UTC',
      locale: input.locale ?? 'en-US',
      active: true,
      suspended: false,
      verified: input.verified ?? true,
      notes: input.notes ?? '',
      details: input.details ?? '',
      alias: input.alias ?? '',
      signature: input.signature ?? null,
      userFields: input.userFields ?? {},
      lastLoginAt: null,
      createdAt: now,
      updatedAt: now,
    }
    account.users.set(user.id, user)
    return user
  }

  addOrganization(account: Account, input: NewOrganization, now: number): Organization {
    const organization: Organization = {
      id: this.nextId('organization'),
      name: input.name,
      domainNames: input.domainNames ?? [],
      details: input.details ?? '',
      notes: input.notes ?? '',
      tags: input.tags ?? [],
      externalId: input.externalId ?? null,
      groupId: null,
      sharedTickets: false,
      sharedComments: false,
      organizationFields: {},
      createdAt: now,
      updatedAt: now,
    }
    account.organizations.set(organization.id, organization)
    return organization
  }

  userByEmail(account: Account, email: string): User | undefined {
    const wanted = email.trim().toLowerCase()
    if (!wanted) return undefined
    for (const user of account.users.values()) if (user.email === wanted) return user
    return undefined
  }

  addClient(client: OAuthClient): OAuthClient {
    this.clients.set(client.identifier, client)
    return client
  }
}
