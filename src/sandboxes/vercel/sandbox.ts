import { SandboxInstance } from '../kit/instance.ts'
import { WebhookDispatcher } from './delivery.ts'
import { deploymentId, eventId, lower36 } from './ids.ts'
import type { Deployment, DeploymentState, Project } from './model.ts'
import { inspectorUrl } from './presenters.ts'
import { RateLimiter } from './rate-limit.ts'
import { seedStore } from './seed.ts'
import { VERCEL_CONTROL_ERRORS } from './control.ts'
import { Store } from './store.ts'

/** Query parameters whose values are credentials, masked in the request log. */
const REQUEST_LOG_SECRETS = ['token', 'access_token', 'client_secret', 'code', 'password', 'session']

export interface VercelSandboxOptions {
  /** Load the seeded users, team, projects, deployments and integration client (default true). */
  seed?: boolean
}

/**
 * Build timeline on the sandbox clock (the real durations vary; these are the sandbox's choice):
 * QUEUED at creation, BUILDING after 2 s, READY (or ERROR) after 10 s.
 */
export const BUILDING_AFTER_MS = 2_000
export const DONE_AFTER_MS = 10_000

/** A deployment with `meta.sandboxOutcome: "error"` ends in ERROR instead of READY. */
export const OUTCOME_META_KEY = 'sandboxOutcome'

export interface NewDeployment {
  project: Project
  creatorId: string
  name?: string
  target: string | null
  customEnvironmentId?: string | null
  meta: Record<string, string>
  gitSource: Record<string, unknown> | null
  source: string
  /** Pin the deployment in this state (control API); otherwise it starts QUEUED and moves on the clock. */
  state?: DeploymentState
  createdAt?: number
}

export class VercelSandbox extends SandboxInstance<Store> {
  readonly rateLimiter = new RateLimiter()
  readonly dispatcher = new WebhookDispatcher(() => this.now())

  constructor(options: VercelSandboxOptions = {}) {
    super({
      emptyStore: () => new Store(),
      seed: seedStore,
      seeded: options.seed,
      logSecrets: { params: REQUEST_LOG_SECRETS },
      // A clock move moves deployments along at once.
      control: { errors: VERCEL_CONTROL_ERRORS, clockMoved: () => this.tick() },
    })
  }

  protected override resetOwnParts(): void {
    this.rateLimiter.reset()
    this.dispatcher.clear()
    this.dispatcher.resetSettings()
  }

  createDeployment(input: NewDeployment): Deployment {
    const { project } = input
    const now = this.now()
    const createdAt = input.createdAt ?? this.store.deploymentTimestamp(now)
    const state = input.state
    const slug = this.store.ownerSlug(project.ownerId)
    const deployment: Deployment = {
      id: deploymentId(),
      ownerId: project.ownerId,
      projectId: project.id,
      name: input.name ?? project.name,
      url: `${project.name}-${lower36(9)}-${slug}.vercel.app`,
      creatorId: input.creatorId,
      target: input.target,
      customEnvironmentId: input.customEnvironmentId ?? null,
      meta: input.meta,
      gitSource: input.gitSource,
      source: input.source,
      regions: ['iad1'],
      createdAt,
      buildingAt: null,
      ready: null,
      canceledAt: null,
      errorAt: null,
      readyState: state ?? 'QUEUED',
      outcome: input.meta[OUTCOME_META_KEY] === 'error' || state === 'ERROR' ? 'ERROR' : 'READY',
      pinned: state !== undefined,
      aliasAssigned: null,
    }
    if (state && state !== 'QUEUED' && state !== 'INITIALIZING')
      deployment.buildingAt = createdAt + BUILDING_AFTER_MS
    if (state === 'READY') deployment.ready = deployment.aliasAssigned = createdAt + DONE_AFTER_MS
    if (state === 'ERROR') deployment.errorAt = createdAt + DONE_AFTER_MS
    if (state === 'CANCELED') deployment.canceledAt = createdAt + BUILDING_AFTER_MS
    this.store.deployments.set(deployment.id, deployment)
    project.updatedAt = Math.max(project.updatedAt, now)
    this.emit('deployment.created', deployment)
    return deployment
  }

  cancelDeployment(deployment: Deployment): void {
    deployment.readyState = 'CANCELED'
    deployment.canceledAt = this.now()
    this.emit('deployment.canceled', deployment)
  }

  /**
   * Ends a deployment that is still queued or building at once, as READY or ERROR, with the
   * events the timeline would send (control API: a person makes a build succeed or fail now).
   */
  finishDeployment(d: Deployment, outcome: 'READY' | 'ERROR'): void {
    const now = this.now()
    d.pinned = true
    d.outcome = outcome
    d.buildingAt ??= now
    if (outcome === 'ERROR') {
      d.readyState = 'ERROR'
      d.errorAt = now
      this.emit('deployment.error', d)
    } else {
      d.readyState = 'READY'
      d.ready = d.aliasAssigned = now
      this.emit('deployment.succeeded', d)
      this.emit('deployment.ready', d)
    }
  }

  /** Moves clock-driven deployments along their timeline, emitting webhook events. */
  tick(): void {
    const now = this.now()
    for (const d of this.store.deployments.values()) {
      if (d.pinned || !['QUEUED', 'INITIALIZING', 'BUILDING'].includes(d.readyState)) continue
      const elapsed = now - d.createdAt
      if (elapsed >= BUILDING_AFTER_MS && d.readyState !== 'BUILDING') {
        d.readyState = 'BUILDING'
        d.buildingAt = d.createdAt + BUILDING_AFTER_MS
      }
      if (elapsed >= DONE_AFTER_MS) {
        const at = d.createdAt + DONE_AFTER_MS
        if (d.outcome === 'ERROR') {
          d.readyState = 'ERROR'
          d.errorAt = at
          this.emit('deployment.error', d)
        } else {
          d.readyState = 'READY'
          d.ready = at
          d.aliasAssigned = at
          this.emit('deployment.succeeded', d)
          this.emit('deployment.ready', d)
        }
      }
    }
  }

  /** Queues one delivery per matching webhook of the deployment's owner. */
  emit(type: string, d: Deployment): void {
    const project = this.store.projects.get(d.projectId)
    const team = this.store.teams.get(d.ownerId)
    for (const hook of this.store.webhooks.values()) {
      if (hook.ownerId !== d.ownerId || !hook.events.includes(type)) continue
      if (hook.projectIds.length && !hook.projectIds.includes(d.projectId)) continue
      const event = {
        id: eventId(),
        type,
        createdAt: this.now(),
        region: d.regions[0] ?? null,
        payload: {
          team: team ? { id: team.id } : null,
          user: { id: d.creatorId },
          deployment: {
            id: d.id,
            name: d.name,
            url: d.url,
            meta: d.meta,
            inspectorUrl: inspectorUrl(this.store, d),
          },
          links: {
            deployment: inspectorUrl(this.store, d),
            project: `https://vercel.com/${this.store.ownerSlug(d.ownerId)}/${project?.name ?? d.name}`,
          },
          target: d.target,
          project: { id: d.projectId },
          plan: team ? 'pro' : 'hobby',
          regions: d.regions,
          alias: d.readyState === 'READY' ? [d.url] : [],
        },
      }
      this.dispatcher.enqueue(hook.id, hook.url, hook.secret, event.id, type, JSON.stringify(event))
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close()
  }
}
