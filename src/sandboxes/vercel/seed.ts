import { newProject, type Deployment, type Project } from './model.ts'
import type { Store } from './store.ts'

/** 2024-01-01T00:00:00Z: seeded records are dated from here. */
const T0 = 1_704_067_200_000
const DAY = 86_400_000

/** Every fixed seeded value. Password for all seeded users: `sandbox`. */
export const SEED = {
  password: 'sandbox',
  user: {
    id: 'usr_AdaLovelaceSandbox000001',
    username: 'ada',
    name: 'Ada Lovelace',
    email: 'ada@vercel.test',
  },
  member: {
    id: 'usr_GraceHopperSandbox00002',
    username: 'grace',
    name: 'Grace Hopper',
    email: 'grace@vercel.test',
  },
  team: { id: 'team_AcmeSandboxTeam0000001', slug: 'acme', name: 'Acme' },
  /** ada is OWNER, grace is MEMBER. */
  teamRoles: { ada: 'OWNER', grace: 'MEMBER' },
  personalProject: { id: 'prj_AdaBlogSandboxProject000001', name: 'ada-blog', framework: 'nextjs' },
  teamProject: { id: 'prj_AcmeWebSandboxProject000001', name: 'acme-web', framework: 'nextjs' },
  deployments: {
    /** ada-blog, production, READY. */
    personalReady: { id: 'dpl_AdaBlogReadySandbox0000000001', url: 'ada-blog-k2j4h6g8f-ada.vercel.app' },
    /** ada-blog, preview (branch `draft`), ERROR. */
    personalError: { id: 'dpl_AdaBlogErrorSandbox0000000002', url: 'ada-blog-m3n5b7v9c-ada.vercel.app' },
    /** acme-web, production, READY. */
    teamReady: { id: 'dpl_AcmeWebReadySandbox0000000001', url: 'acme-web-p4q6r8s2t-acme.vercel.app' },
    /** acme-web, preview (branch `feature-x`), CANCELED. */
    teamCanceled: { id: 'dpl_AcmeWebCanceledSandbox00000002', url: 'acme-web-x5y7z9w3u-acme.vercel.app' },
  },
  domains: { personal: 'ada.dev', team: 'acme.com' },
  integration: {
    slug: 'switchyard',
    name: 'Switchyard',
    clientId: 'oac_switchyard_sandbox',
    clientSecret: 'switchyard-vercel-sandbox-secret',
  },
} as const

function project(id: string, ownerId: string, name: string, framework: string, createdAt: number): Project {
  return newProject({ id, ownerId, name, framework, createdAt })
}

function deployment(
  id: string,
  url: string,
  p: Project,
  creatorId: string,
  target: string | null,
  branch: string,
  state: 'READY' | 'ERROR' | 'CANCELED',
  createdAt: number,
): Deployment {
  return {
    id,
    ownerId: p.ownerId,
    projectId: p.id,
    name: p.name,
    url,
    creatorId,
    target,
    customEnvironmentId: null,
    meta: {
      githubCommitRef: branch,
      githubCommitSha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
      githubOrg: 'example',
      githubRepo: p.name,
    },
    gitSource: {
      type: 'github',
      org: 'example',
      repo: p.name,
      ref: branch,
      sha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
    },
    source: 'git',
    regions: ['iad1'],
    createdAt,
    buildingAt: createdAt + 2_000,
    ready: state === 'READY' ? createdAt + 10_000 : null,
    canceledAt: state === 'CANCELED' ? createdAt + 5_000 : null,
    errorAt: state === 'ERROR' ? createdAt + 10_000 : null,
    readyState: state,
    outcome: state === 'ERROR' ? 'ERROR' : 'READY',
    pinned: true,
    aliasAssigned: state === 'READY' ? createdAt + 10_000 : null,
  }
}

export function seedStore(store: Store): void {
  const { user, member, team, integration } = SEED
  store.users.set(user.id, {
    ...user,
    password: SEED.password,
    avatar: null,
    createdAt: T0,
    defaultTeamId: null,
  })
  store.users.set(member.id, {
    ...member,
    password: SEED.password,
    avatar: null,
    createdAt: T0 + 1000,
    defaultTeamId: null,
  })
  store.teams.set(team.id, {
    ...team,
    description: null,
    createdAt: T0,
    updatedAt: T0,
    creatorId: user.id,
    members: [
      { uid: user.id, role: 'OWNER', createdAt: T0 },
      { uid: member.id, role: 'MEMBER', createdAt: T0 + 1000 },
    ],
  })
  const personal = project(
    SEED.personalProject.id,
    user.id,
    SEED.personalProject.name,
    SEED.personalProject.framework,
    T0 + DAY,
  )
  const shared = project(
    SEED.teamProject.id,
    team.id,
    SEED.teamProject.name,
    SEED.teamProject.framework,
    T0 + DAY,
  )
  store.projects.set(personal.id, personal)
  store.projects.set(shared.id, shared)
  const d = SEED.deployments
  for (const dep of [
    deployment(
      d.personalReady.id,
      d.personalReady.url,
      personal,
      user.id,
      'production',
      'main',
      'READY',
      T0 + 2 * DAY,
    ),
    deployment(
      d.personalError.id,
      d.personalError.url,
      personal,
      user.id,
      null,
      'draft',
      'ERROR',
      T0 + 3 * DAY,
    ),
    deployment(d.teamReady.id, d.teamReady.url, shared, user.id, 'production', 'main', 'READY', T0 + 2 * DAY),
    deployment(
      d.teamCanceled.id,
      d.teamCanceled.url,
      shared,
      member.id,
      null,
      'feature-x',
      'CANCELED',
      T0 + 3 * DAY,
    ),
  ]) {
    store.deployments.set(dep.id, dep)
  }
  store.domains.set(SEED.domains.personal, {
    id: 'dom_AdaDevSandbox000000001',
    name: SEED.domains.personal,
    ownerId: user.id,
    creatorId: user.id,
    createdAt: T0,
    verified: true,
    serviceType: 'external',
  })
  store.domains.set(SEED.domains.team, {
    id: 'dom_AcmeComSandbox0000001',
    name: SEED.domains.team,
    ownerId: team.id,
    creatorId: user.id,
    createdAt: T0,
    verified: true,
    serviceType: 'zeit.world',
  })
  store.clients.set(integration.clientId, { ...integration, redirectUris: [], allowLoopback: true })
}
