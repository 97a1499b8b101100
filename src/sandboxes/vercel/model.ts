/** In-memory records. Owners are users (personal accounts) or teams; `ownerId` is either id. */

export interface User {
  id: string
  username: string
  email: string
  name: string
  password: string
  avatar: string | null
  createdAt: number
  /** Null: the sandbox keeps a personal (Hobby) scope for every user, see docs. */
  defaultTeamId: string | null
}

export const TEAM_ROLES = [
  'OWNER',
  'MEMBER',
  'DEVELOPER',
  'SECURITY',
  'BILLING',
  'VIEWER',
  'VIEWER_FOR_PLUS',
  'CONTRIBUTOR',
] as const
export type TeamRole = (typeof TEAM_ROLES)[number]

export interface TeamMember {
  uid: string
  role: TeamRole
  createdAt: number
}

export interface Team {
  id: string
  slug: string
  name: string
  description: string | null
  createdAt: number
  updatedAt: number
  creatorId: string
  members: TeamMember[]
}

export const ENV_TYPES = ['system', 'secret', 'encrypted', 'plain', 'sensitive'] as const
export type EnvType = (typeof ENV_TYPES)[number]
export const ENV_TARGETS = ['production', 'preview', 'development'] as const
export type EnvTarget = (typeof ENV_TARGETS)[number]

export interface EnvVar {
  id: string
  key: string
  value: string
  type: EnvType
  target: EnvTarget[]
  gitBranch: string | null
  comment: string | null
  configurationId: string | null
  createdAt: number
  updatedAt: number
  createdBy: string
  updatedBy: string | null
}

export interface ProjectDomain {
  name: string
  apexName: string
  projectId: string
  redirect: string | null
  redirectStatusCode: number | null
  gitBranch: string | null
  verified: boolean
  createdAt: number
  updatedAt: number
}

export interface Project {
  id: string
  ownerId: string
  name: string
  framework: string | null
  nodeVersion: string
  buildCommand: string | null
  devCommand: string | null
  installCommand: string | null
  outputDirectory: string | null
  rootDirectory: string | null
  publicSource: boolean | null
  serverlessFunctionRegion: string
  link: Record<string, unknown> | null
  createdAt: number
  updatedAt: number
  domains: ProjectDomain[]
  envs: EnvVar[]
}

/** A new project as Vercel makes one: no build settings, no domains or env vars yet. */
export function newProject(fields: {
  id: string
  ownerId: string
  name: string
  framework: string | null
  nodeVersion?: string
  createdAt: number
}): Project {
  return {
    id: fields.id,
    ownerId: fields.ownerId,
    name: fields.name,
    framework: fields.framework,
    nodeVersion: fields.nodeVersion ?? '22.x',
    buildCommand: null,
    devCommand: null,
    installCommand: null,
    outputDirectory: null,
    rootDirectory: null,
    publicSource: null,
    serverlessFunctionRegion: 'iad1',
    link: null,
    createdAt: fields.createdAt,
    updatedAt: fields.createdAt,
    domains: [],
    envs: [],
  }
}

export const DEPLOYMENT_STATES = ['QUEUED', 'BUILDING', 'READY', 'ERROR', 'CANCELED', 'INITIALIZING'] as const
export type DeploymentState = (typeof DEPLOYMENT_STATES)[number]

export interface Deployment {
  id: string
  ownerId: string
  projectId: string
  name: string
  url: string
  creatorId: string
  /** 'production', 'staging' or null (preview) [sources: Vercel deployments]. */
  target: string | null
  customEnvironmentId: string | null
  meta: Record<string, string>
  gitSource: Record<string, unknown> | null
  source: string
  regions: string[]
  createdAt: number
  buildingAt: number | null
  ready: number | null
  canceledAt: number | null
  errorAt: number | null
  readyState: DeploymentState
  /** Where the clock-driven build ends. */
  outcome: 'READY' | 'ERROR'
  /** Pinned deployments (seeded, or created by the control API in a given state) never move on their own. */
  pinned: boolean
  aliasAssigned: number | null
}

export interface Domain {
  id: string
  name: string
  ownerId: string
  creatorId: string
  createdAt: number
  verified: boolean
  serviceType: 'zeit.world' | 'external' | 'na'
}

export const WEBHOOK_EVENTS = [
  'deployment.created',
  'deployment.succeeded',
  'deployment.ready',
  'deployment.error',
  'deployment.canceled',
  'deployment.promoted',
  'project.created',
  'project.removed',
] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

export interface Webhook {
  id: string
  ownerId: string
  url: string
  events: string[]
  projectIds: string[]
  secret: string
  createdAt: number
  updatedAt: number
}

export interface Token {
  token: string
  userId: string
  /** Team the token is scoped to; null for the personal account. */
  teamId: string | null
  installationId: string | null
  createdAt: number
  /** What a person called it on the account tokens page (account-tokens-page.ts); absent for others. */
  name?: string
}

export interface IntegrationClient {
  slug: string
  name: string
  clientId: string
  clientSecret: string
  /** Exact redirect URIs registered in the Integration Console. */
  redirectUris: string[]
  /** Also accept any http://localhost:* and http://127.0.0.1:* URI (the seeded client). */
  allowLoopback: boolean
}

export interface Installation {
  id: string
  clientId: string
  userId: string
  teamId: string | null
  createdAt: number
}

export interface AuthCode {
  code: string
  clientId: string
  redirectUri: string
  userId: string
  teamId: string | null
  installationId: string
  expiresAt: number
  used: boolean
}
