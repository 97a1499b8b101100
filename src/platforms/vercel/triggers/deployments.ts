import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import {
  defineTrigger,
  type AnyTrigger,
  type EventCandidate,
  type TriggerEvent,
} from '../../../core/triggers/define.ts'
import { projectOptions } from '../options.ts'
import { isVercelEvent } from '../webhooks.ts'
import { deploymentEvent, sampleEvent, VercelDeploymentEvent } from './event.ts'

/** Projects one subscription may be limited to; the webhook in Vercel may itself be limited too. */
export const MAX_PROJECTS = 50

const ProjectIds = z
  .array(
    z
      .string({ error: 'must be a project id such as prj_…' })
      .trim()
      .regex(/^prj_[A-Za-z0-9]{1,64}$/, 'must be a project id such as prj_…'),
    { error: 'must be a list of project ids' },
  )
  .max(MAX_PROJECTS, `limit a trigger to at most ${MAX_PROJECTS} projects`)
  .optional()
  .describe('Only deployments of these projects (leave empty for every project the webhook sends)')

const Config = z.object({ project_ids: ProjectIds }, { error: 'give the configuration as an object' })
type DeploymentConfig = z.output<typeof Config>

interface Spec {
  id: string
  title: string
  alsoKnownAs: string[]
  description: string
  type: string
}

/** A fresh event id in Vercel's shape, so a sample is never taken for a duplicate of the last one. */
const sampleId = () => `evt_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`

function deploymentTrigger(spec: Spec): AnyTrigger {
  const match = (candidate: EventCandidate, config: DeploymentConfig): TriggerEvent | null => {
    if (candidate.type !== spec.type || !isVercelEvent(candidate.raw)) return null
    const event = deploymentEvent(candidate.raw)
    if (!event) return null
    const projectId = (event.project as { id: string }).id
    if (config.project_ids?.length && !config.project_ids.includes(projectId)) return null
    return event
  }
  const sample = match(
    { dedupeKey: 'evt_sample', type: spec.type, raw: sampleEvent(spec.type, 'evt_2XqF5Lk8Wm3Rn9Tb4Vc7Yd1') },
    {},
  )
  if (!sample) throw new Error(`${spec.id}: its sample does not fire it`)
  return defineTrigger({
    id: spec.id,
    title: spec.title,
    alsoKnownAs: spec.alsoKnownAs,
    description: spec.description,
    mode: 'instant',
    config: Config,
    configOptions: { project_ids: projectOptions },
    event: VercelDeploymentEvent,
    sample,
    webhookEvents: [spec.type],
    match: (candidate, config) => match(candidate, config as DeploymentConfig),
    sampleBody: (config) => sampleEvent(spec.type, sampleId(), (config as DeploymentConfig).project_ids?.[0]),
  })
}

export const deploymentStarted = deploymentTrigger({
  id: 'vercel.deployment_started',
  title: 'Deployment Started',
  alsoKnownAs: ['deployment created', 'new deployment'],
  description:
    "A deployment was created (Vercel's deployment.created): a push, a redeploy or an API call started a build.",
  type: 'deployment.created',
})

export const deploymentSucceeded = deploymentTrigger({
  id: 'vercel.deployment_succeeded',
  title: 'Deployment Succeeded',
  // The product's specification calls this event "deployment completed"; Vercel's dashboard says "Ready".
  alsoKnownAs: ['deployment completed', 'deployment ready', 'deployment finished'],
  description: "A deployment finished building and is ready (Vercel's deployment.succeeded).",
  type: 'deployment.succeeded',
})

export const deploymentFailed = deploymentTrigger({
  id: 'vercel.deployment_failed',
  title: 'Deployment Failed',
  alsoKnownAs: ['deployment error', 'build failed'],
  description: "A deployment failed to build or deploy (Vercel's deployment.error).",
  type: 'deployment.error',
})
