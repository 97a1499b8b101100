import { z } from 'zod'
import type { TriggerEvent } from '../../../core/triggers/define.ts'
import type { VercelEvent } from '../webhooks.ts'

/**
 * The normalised event the deployment triggers emit: the webhook event itself, the deployment, its
 * project, who made it and where to look (docs/triggers/vercel.md). Mappings read these names.
 * Vercel's deployment payload gives ids for the team, user and project, and the deployment's id,
 * name, url and meta (sources: Vercel webhooks).
 */

const Str = z.string()
export const VercelDeploymentEvent = z.object({
  event: z.object({
    id: Str.describe('The webhook event id: unique per event'),
    type: Str.describe('deployment.created, deployment.succeeded or deployment.error'),
    createdAt: z.number().describe('When it happened, in milliseconds since 1970'),
    date: Str.describe('When it happened (ISO 8601)'),
    region: Str.nullable().describe('The region Vercel sent it from, or null'),
  }),
  deployment: z.object({
    id: Str.describe('The deployment id (dpl_…)'),
    name: Str.describe("The deployment's name: its project's name"),
    url: Str.describe("The deployment's address, with https://"),
    host: Str.describe("The deployment's host name, as Vercel gives it"),
    state: z
      .enum(['QUEUED', 'READY', 'ERROR'])
      .describe('QUEUED when just created, READY when it succeeded, ERROR when it failed'),
    target: Str.nullable().describe('production, staging, or null for a preview'),
    meta: z
      .record(Str, Str)
      .describe("Vercel's meta: for a git deployment githubCommitRef, githubCommitSha, githubCommitMessage…"),
    inspector_url: Str.nullable().describe("The deployment's page in the Vercel dashboard"),
  }),
  project: z.object({ id: Str.describe('The project id (prj_…)'), name: Str.describe("The project's name") }),
  target: Str.nullable().describe('production, staging, or null for a preview'),
  creator: z.object({ id: Str.describe('The Vercel user who made the deployment') }),
  team: z.object({ id: Str }).nullable().describe('The team, or null for a personal account'),
  links: z
    .object({ deployment: Str.nullable(), project: Str.nullable() })
    .describe('The dashboard pages of the deployment and the project'),
  plan: Str.nullable(),
  regions: z.array(Str),
})

const STATE_OF: Record<string, 'QUEUED' | 'READY' | 'ERROR'> = {
  'deployment.created': 'QUEUED',
  'deployment.succeeded': 'READY',
  'deployment.error': 'ERROR',
}

const rec = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
const str = (value: unknown): string | null => (typeof value === 'string' && value ? value : null)
/** Vercel's deployment url is a bare host name; older payloads added the scheme themselves. */
const hostOf = (url: string) => url.replace(/^https?:\/\//, '').replace(/\/+$/, '')

/** The normalised event of a deployment webhook event; null when the payload has no deployment id. */
export function deploymentEvent(raw: VercelEvent): TriggerEvent | null {
  const payload = raw.payload
  const deployment = rec(payload.deployment)
  const id = str(deployment.id)
  if (!id) return null
  const host = hostOf(str(deployment.url) ?? '')
  const name = str(deployment.name) ?? ''
  const links = rec(payload.links)
  const target = str(payload.target)
  const team = str(rec(payload.team).id)
  const meta = Object.fromEntries(
    Object.entries(rec(deployment.meta)).filter(([, v]) => typeof v === 'string'),
  ) as Record<string, string>
  const createdAt = typeof raw.createdAt === 'number' && Number.isFinite(raw.createdAt) ? raw.createdAt : 0
  return {
    event: {
      id: raw.id,
      type: raw.type,
      createdAt,
      date: new Date(createdAt).toISOString(),
      region: str(raw.region),
    },
    deployment: {
      id,
      name,
      url: host ? `https://${host}` : '',
      host,
      state: STATE_OF[raw.type] ?? 'QUEUED',
      target,
      meta,
      inspector_url: str(deployment.inspectorUrl) ?? str(links.deployment),
    },
    project: { id: str(rec(payload.project).id) ?? '', name },
    target,
    creator: { id: str(rec(payload.user).id) ?? '' },
    team: team ? { id: team } : null,
    links: { deployment: str(links.deployment), project: str(links.project) },
    plan: str(payload.plan),
    regions: Array.isArray(payload.regions)
      ? payload.regions.filter((r): r is string => typeof r === 'string')
      : [],
  }
}

/** Realistic ids and names for samples (the shapes of the sandbox's deliveries and Vercel's docs). */
export const SAMPLE = {
  project: { id: 'prj_Qm3kR8sVbN2xWp7LcT4yHd9eFa1G', name: 'acme-web' },
  team: { id: 'team_Vx8Lq2Rk5Nw9Tb3Mc7Pd1Hs4' },
  user: { id: 'usr_9Gh2Kd7Lm4Qp1Rs8Tv3Wx6Yz' },
  deployment: { id: 'dpl_FjHqKq5xT9Lm2Rw8Nb4Vc7Yd1Ps', host: 'acme-web-9jaeg38me-acme.vercel.app' },
  createdAt: 1772443800000,
}

/** A Vercel webhook event of `type` for SAMPLE's deployment, in `projectId`, with the given event id. */
export function sampleEvent(type: string, id: string, projectId: string = SAMPLE.project.id): VercelEvent {
  const dashboard = `https://vercel.com/acme/${SAMPLE.project.name}`
  return {
    id,
    type,
    createdAt: SAMPLE.createdAt,
    region: 'iad1',
    payload: {
      team: SAMPLE.team,
      user: SAMPLE.user,
      deployment: {
        id: SAMPLE.deployment.id,
        name: SAMPLE.project.name,
        url: SAMPLE.deployment.host,
        meta: {
          githubCommitRef: 'main',
          githubCommitSha: '3f9c2a7e1b4d8f6a0c5e9b2d7f1a4c8e6b3d0f2a',
          githubCommitMessage: 'Fix the checkout button',
        },
        inspectorUrl: `${dashboard}/${SAMPLE.deployment.id.slice(4)}`,
      },
      links: { deployment: `${dashboard}/${SAMPLE.deployment.id.slice(4)}`, project: dashboard },
      target: 'production',
      project: { id: projectId },
      plan: 'pro',
      regions: ['iad1'],
      alias: type === 'deployment.succeeded' ? [SAMPLE.deployment.host] : [],
    },
  }
}
