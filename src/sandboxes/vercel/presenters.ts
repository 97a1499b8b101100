import { createHash } from 'node:crypto'
import type { Deployment, Domain, EnvVar, Project, ProjectDomain, Team, User, Webhook } from './model.ts'
import type { Store } from './store.ts'

/**
 * JSON shapes as in the OAS (V-OAS) and sources: Vercel, and as the current @vercel/sdk
 * validates them where the two differ (docs/sandbox.md, "Real clients"). An optional field with
 * no value is left out, never sent as `null`: the SDK reads a `null` where the schema does not
 * allow one as a near-miss and quietly falls back to a smaller response type.
 */

export const DASHBOARD = 'https://vercel.com'

export function userJson(user: User): Record<string, unknown> {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    username: user.username,
    avatar: user.avatar,
    defaultTeamId: user.defaultTeamId,
    createdAt: user.createdAt,
    softBlock: null,
    // An object whose fields the reference leaves open.
    billing: { plan: 'hobby' },
    resourceConfig: {},
    stagingPrefix: user.username,
    hasTrialAvailable: false,
  }
}

export function teamJson(team: Team, viewerId: string | null): Record<string, unknown> {
  const member = viewerId ? team.members.find((m) => m.uid === viewerId) : undefined
  return {
    id: team.id,
    slug: team.slug,
    name: team.name,
    avatar: null,
    description: team.description,
    createdAt: team.createdAt,
    updatedAt: team.updatedAt,
    creatorId: team.creatorId,
    stagingPrefix: team.slug,
    billing: { plan: 'pro' },
    membership: member
      ? {
          role: member.role,
          confirmed: true,
          created: member.createdAt,
          createdAt: member.createdAt,
          uid: member.uid,
          teamId: team.id,
        }
      : undefined,
  }
}

export function memberJson(store: Store, team: Team, uid: string): Record<string, unknown> | undefined {
  const member = team.members.find((m) => m.uid === uid)
  const user = store.users.get(uid)
  if (!member || !user) return undefined
  return {
    uid: user.id,
    username: user.username,
    email: user.email,
    name: user.name,
    avatar: user.avatar ?? undefined,
    role: member.role,
    confirmed: true,
    createdAt: member.createdAt,
    joinedFrom: { origin: 'mail' },
  }
}

export function inspectorUrl(store: Store, d: Deployment): string {
  const project = store.projects.get(d.projectId)
  return `${DASHBOARD}/${store.ownerSlug(d.ownerId)}/${project?.name ?? d.name}/${d.id.slice(4)}`
}

/**
 * A deployment's creator. The v13 shape has an avatar, left out when the user has none (the SDK
 * reads a `null` there as a mismatch and falls back to a smaller response type), and no email;
 * the lists' shape (v6 items, a project's deployments) has the email and no avatar.
 */
function creatorJson(store: Store, uid: string, shape: 'v13' | 'list'): Record<string, unknown> {
  const user = store.users.get(uid)
  const username = user?.username ?? 'unknown'
  if (shape === 'list') return { uid, username, ...(user ? { email: user.email } : {}) }
  return { uid, username, ...(user?.avatar ? { avatar: user.avatar } : {}) }
}

/** Full deployment (`GET/POST /v13/deployments`). v13 uses `id`, not `uid` [sources: Vercel deployments]. */
export function deploymentJson(store: Store, d: Deployment): Record<string, unknown> {
  const project = store.projects.get(d.projectId)
  const team = store.teams.get(d.ownerId)
  return {
    id: d.id,
    url: d.url,
    name: d.name,
    projectId: d.projectId,
    ownerId: d.ownerId,
    readyState: d.readyState,
    status: d.readyState,
    readySubstate:
      d.readyState === 'READY' && d.target === 'production'
        ? 'PROMOTED'
        : d.readyState === 'READY'
          ? 'STAGED'
          : undefined,
    createdAt: d.createdAt,
    buildingAt: d.buildingAt ?? 0,
    bootedAt: d.buildingAt ?? 0,
    ready: d.ready ?? undefined,
    canceledAt: d.canceledAt ?? undefined,
    buildErrorAt: d.errorAt ?? undefined,
    errorCode: d.readyState === 'ERROR' ? 'BUILD_FAILED' : undefined,
    errorMessage: d.readyState === 'ERROR' ? 'Command "npm run build" exited with 1' : undefined,
    errorStep: d.readyState === 'ERROR' ? 'build' : undefined,
    type: 'LAMBDAS',
    version: 2,
    plan: team ? 'pro' : 'hobby',
    public: false,
    regions: d.regions,
    createdIn: 'sfo1',
    target: d.target,
    customEnvironment: d.customEnvironmentId ? { id: d.customEnvironmentId } : undefined,
    source: d.source,
    creator: creatorJson(store, d.creatorId, 'v13'),
    team: team ? { id: team.id, name: team.name, slug: team.slug } : undefined,
    project: project ? { id: project.id, name: project.name, framework: project.framework } : undefined,
    meta: d.meta,
    gitSource: d.gitSource ?? undefined,
    alias: d.readyState === 'READY' ? [d.url] : [],
    // v13 says whether the aliases are assigned (a boolean) and when, apart (aliasAssignedAt).
    aliasAssigned: d.aliasAssigned !== null,
    aliasAssignedAt: d.aliasAssigned,
    aliasError: null,
    inspectorUrl: inspectorUrl(store, d),
    build: { env: [] },
    env: [],
    routes: null,
    isInConcurrentBuildsQueue: false,
    isInSystemBuildsQueue: false,
    buildSkipped: false,
    projectSettings: project
      ? {
          framework: project.framework,
          buildCommand: project.buildCommand,
          installCommand: project.installCommand,
          outputDirectory: project.outputDirectory,
          nodeVersion: project.nodeVersion,
        }
      : {},
  }
}

/** A `/v6/deployments` item: `uid` + `created` are the required fields there [sources: Vercel deployments]. */
export function deploymentListItem(store: Store, d: Deployment): Record<string, unknown> {
  return {
    uid: d.id,
    name: d.name,
    projectId: d.projectId,
    url: d.url,
    created: d.createdAt,
    createdAt: d.createdAt,
    buildingAt: d.buildingAt ?? undefined,
    ready: d.ready ?? undefined,
    state: d.readyState,
    readyState: d.readyState,
    type: 'LAMBDAS',
    target: d.target,
    source: d.source,
    inspectorUrl: inspectorUrl(store, d),
    creator: creatorJson(store, d.creatorId, 'list'),
    meta: d.meta,
    // The v6 list gives the time the aliases were assigned here, or null.
    aliasAssigned: d.aliasAssigned,
    aliasError: null,
    isRollbackCandidate: d.target === 'production' && d.readyState === 'READY',
  }
}

/**
 * Env values by type (V-OAS `decrypted`): plain/system values are returned as stored; encrypted
 * and secret values come back as an opaque ciphertext unless `decrypt=true`; sensitive values are
 * never returned (the value is empty) — the sandbox's reading of "sensitive".
 */
export function envJson(env: EnvVar, decrypt: boolean): Record<string, unknown> {
  const base: Record<string, unknown> = {
    id: env.id,
    key: env.key,
    type: env.type,
    target: [...env.target],
    gitBranch: env.gitBranch ?? undefined,
    comment: env.comment ?? undefined,
    configurationId: env.configurationId,
    createdAt: env.createdAt,
    updatedAt: env.updatedAt,
    createdBy: env.createdBy,
    updatedBy: env.updatedBy,
  }
  if (env.type === 'plain' || env.type === 'system') return { ...base, value: env.value, decrypted: false }
  // `value` is a required field; a sensitive one is there but empty.
  if (env.type === 'sensitive') return { ...base, value: '', decrypted: false }
  if (decrypt) return { ...base, value: env.value, decrypted: true }
  return { ...base, value: ciphertext(env), decrypted: false }
}

/**
 * A variable as the env list (`GET /v10/projects/{p}/env`) gives it: with the findings of Vercel's
 * secret scanner, which the current SDK requires there (the sandbox scans nothing, so none).
 */
export function listedEnvJson(env: EnvVar, decrypt: boolean): Record<string, unknown> {
  return { ...envJson(env, decrypt), securityIssues: [] }
}

function ciphertext(env: EnvVar): string {
  return createHash('sha256').update(`${env.id}:${env.value}`).digest('base64')
}

export function projectDomainJson(domain: ProjectDomain): Record<string, unknown> {
  return {
    ...domain,
    customEnvironmentId: null,
    verification: domain.verified
      ? undefined
      : [
          {
            type: 'TXT',
            domain: `_vercel.${domain.apexName}`,
            value: `vc-domain-verify=${domain.name},sandbox`,
            reason: 'pending_domain_verification',
          },
        ],
  }
}

export function projectJson(store: Store, project: Project): Record<string, unknown> {
  const deployments = [...store.deployments.values()]
    .filter((d) => d.projectId === project.id)
    .sort((a, b) => b.createdAt - a.createdAt)
  // A project's deployment summary, with the fields the OAS and @vercel/sdk 1.28 require of it.
  const plan = store.teams.has(project.ownerId) ? 'pro' : 'hobby'
  const short = (d: Deployment) => ({
    plan,
    id: d.id,
    url: d.url,
    name: d.name,
    deploymentHostname: d.url.replace(/\.vercel\.app$/, ''),
    createdAt: d.createdAt,
    createdIn: 'sfo1',
    userId: d.creatorId,
    teamId: store.teams.has(d.ownerId) ? d.ownerId : undefined,
    private: true,
    readyState: d.readyState,
    target: d.target,
    type: 'LAMBDAS',
    meta: d.meta,
    creator: creatorJson(store, d.creatorId, 'list'),
    aliasAssigned: d.aliasAssigned,
    buildingAt: d.buildingAt ?? undefined,
    readyAt: d.ready ?? undefined,
  })
  const production = deployments.find((d) => d.target === 'production' && d.readyState === 'READY')
  return {
    accountId: project.ownerId,
    id: project.id,
    name: project.name,
    framework: project.framework,
    nodeVersion: project.nodeVersion,
    buildCommand: project.buildCommand,
    devCommand: project.devCommand,
    installCommand: project.installCommand,
    outputDirectory: project.outputDirectory,
    rootDirectory: project.rootDirectory,
    publicSource: project.publicSource ?? undefined,
    directoryListing: false,
    resourceConfig: {
      functionDefaultMemoryType: 'standard',
      functionDefaultTimeout: 300,
      functionDefaultRegions: [project.serverlessFunctionRegion ?? 'iad1'],
    },
    defaultResourceConfig: {
      functionDefaultMemoryType: 'standard',
      functionDefaultTimeout: 300,
      functionDefaultRegions: [project.serverlessFunctionRegion ?? 'iad1'],
    },
    alias: [],
    // Retention settings; every field is optional and the reference gives no defaults.
    deploymentExpiration: {},
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
    env: project.envs.map((e) => envJson(e, false)),
    link: project.link ?? undefined,
    latestDeployments: deployments.slice(0, 5).map(short),
    targets: production ? { production: short(production) } : {},
    live: false,
  }
}

/** `suffix` is part of the single-domain answer only (`GET /v5/domains/{domain}`). */
export function domainJson(store: Store, domain: Domain, single = false): Record<string, unknown> {
  const creator = store.users.get(domain.creatorId)
  const team = store.teams.get(domain.ownerId)
  return {
    id: domain.id,
    name: domain.name,
    verified: domain.verified,
    nameservers: ['ns1.vercel-dns.com', 'ns2.vercel-dns.com'],
    intendedNameservers: ['ns1.vercel-dns.com', 'ns2.vercel-dns.com'],
    customNameservers: [],
    creator: { id: domain.creatorId, username: creator?.username ?? 'unknown', email: creator?.email ?? '' },
    teamId: team ? team.id : null,
    userId: domain.creatorId,
    createdAt: domain.createdAt,
    boughtAt: null,
    expiresAt: null,
    transferredAt: null,
    serviceType: domain.serviceType,
    renew: false,
    // Encrypted Client Hello; the current SDK requires the field. Vercel's default.
    echMode: 'auto',
    ...(single ? { suffix: false } : {}),
  }
}

/** `secret` only on creation [sources: Vercel webhooks]. */
export function webhookJson(webhook: Webhook, withSecret: boolean): Record<string, unknown> {
  return {
    id: webhook.id,
    url: webhook.url,
    events: [...webhook.events],
    ownerId: webhook.ownerId,
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
    projectIds: webhook.projectIds.length ? [...webhook.projectIds] : undefined,
    ...(withSecret ? { secret: webhook.secret } : {}),
  }
}
