import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Deployment } from '../schemas.ts'
import { deploymentLabel, inspectorUrl } from '../links.ts'
import { deploymentOptions } from '../options.ts'

/**
 * A deployment by its id or by its URL, since Vercel's GET /v13/deployments/{idOrUrl} takes either
 * and an agent often holds only the URL (a trigger's `deployment.url`, a link in a message).
 */
const DeploymentRef = z
  .string()
  .trim()
  .regex(
    /^(?:dpl_[A-Za-z0-9]{6,64}|(?:https?:\/\/)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\/?)$/,
    'must be a deployment id such as dpl_3Fq8… or its URL, such as ada-blog-7x2k.vercel.app',
  )

/** The host Vercel looks a deployment up by: a URL given with its scheme or a trailing slash loses them. */
const lookupKey = (ref: string) =>
  ref
    .replace(/^https?:\/\//i, '')
    .replace(/\/$/, '')
    .toLowerCase()

export const getDeployment = defineTool({
  id: 'vercel.get_deployment',
  title: 'Get Deployment',
  description:
    'Get one deployment by its id or URL: its state (QUEUED, BUILDING, READY, ERROR or CANCELED) with the error when it failed, who created it, its target, URL and aliases, and its metadata (git branch and commit, and any meta given at creation).',
  effect: 'read',
  options: { id: deploymentOptions },
  input: z.object({ id: DeploymentRef.describe('The deployment: its id (dpl_…) or its URL') }),
  output: Deployment,
  summarize: (d, { baseUrl }) => {
    const failure = typeof d.errorMessage === 'string' && d.errorMessage ? `: ${d.errorMessage}` : ''
    return { text: `Deployment ${deploymentLabel(d)}${failure}`, url: inspectorUrl(baseUrl, d) }
  },
  async run({ api }, { id }) {
    return api.get(`/v13/deployments/${encodeURIComponent(id.startsWith('dpl_') ? id : lookupKey(id))}`)
  },
})
