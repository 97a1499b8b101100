import type {
  AuthCode,
  Deployment,
  Domain,
  Installation,
  IntegrationClient,
  Project,
  Team,
  Token,
  User,
  Webhook,
} from './model.ts'

/** All records of one sandbox instance. */
export class Store {
  users = new Map<string, User>()
  teams = new Map<string, Team>()
  projects = new Map<string, Project>()
  deployments = new Map<string, Deployment>()
  domains = new Map<string, Domain>()
  webhooks = new Map<string, Webhook>()
  tokens = new Map<string, Token>()
  clients = new Map<string, IntegrationClient>()
  installations = new Map<string, Installation>()
  codes = new Map<string, AuthCode>()
  /** Browser sessions of the sandbox's sign-in pages: session id → user id. */
  sessions = new Map<string, string>()
  private lastDeploymentAt = 0

  /** By id, username or email. */
  user(ref: string): User | undefined {
    const direct = this.users.get(ref)
    if (direct) return direct
    const lower = ref.toLowerCase()
    for (const user of this.users.values())
      if (user.username === ref || user.email.toLowerCase() === lower) return user
    return undefined
  }

  /** By id or slug. */
  team(ref: string): Team | undefined {
    const direct = this.teams.get(ref)
    if (direct) return direct
    for (const team of this.teams.values()) if (team.slug === ref) return team
    return undefined
  }

  teamsOf(userId: string): Team[] {
    return [...this.teams.values()].filter((t) => t.members.some((m) => m.uid === userId))
  }

  isMember(userId: string, team: Team): boolean {
    return team.members.some((m) => m.uid === userId)
  }

  /** URL-ish slug of an owner: the username of a user, the slug of a team. */
  ownerSlug(ownerId: string): string {
    return this.teams.get(ownerId)?.slug ?? this.users.get(ownerId)?.username ?? 'unknown'
  }

  /** A project of this owner by id or name. */
  project(ownerId: string, idOrName: string): Project | undefined {
    const byId = this.projects.get(idOrName)
    if (byId) return byId.ownerId === ownerId ? byId : undefined
    for (const project of this.projects.values())
      if (project.ownerId === ownerId && project.name === idOrName) return project
    return undefined
  }

  /** By id (any owner) or name across all owners (first match). */
  anyProject(idOrName: string): Project | undefined {
    return this.projects.get(idOrName) ?? [...this.projects.values()].find((p) => p.name === idOrName)
  }

  /** By id or hostname (a leading `https://` is ignored). */
  deployment(idOrUrl: string): Deployment | undefined {
    const direct = this.deployments.get(idOrUrl)
    if (direct) return direct
    const host = idOrUrl.replace(/^https?:\/\//, '').replace(/\/.*$/, '')
    for (const d of this.deployments.values()) if (d.url === host) return d
    return undefined
  }

  /**
   * Creation timestamps are kept strictly increasing so `until=<pagination.next>` pagination
   * (exclusive on createdAt) never skips two deployments created in the same millisecond.
   */
  deploymentTimestamp(now: number): number {
    const at = Math.max(now, this.lastDeploymentAt + 1)
    this.lastDeploymentAt = at
    return at
  }
}
