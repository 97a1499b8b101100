import { z } from 'zod'
import { AppError } from '../../../core/errors.ts'
import { defineTool } from '../../../core/tools/define.ts'
import { Deployment, DeploymentId } from '../schemas.ts'
import { deploymentLabel, inspectorUrl } from '../links.ts'
import { cancellableDeploymentOptions } from '../options.ts'

const CANCELLABLE = new Set(['QUEUED', 'BUILDING', 'INITIALIZING'])

export const cancelDeployment = defineTool({
  id: 'vercel.cancel_deployment',
  title: 'Cancel Deployment',
  description:
    'Cancel a deployment that is still queued or building. A deployment that is already ready, failed or cancelled cannot be cancelled.',
  effect: 'write',
  destructive: true, // a cancelled deployment cannot be resumed
  idempotent: true,
  options: { id: cancellableDeploymentOptions },
  input: z.object({ id: DeploymentId }),
  output: Deployment,
  confirm: 'Cancel this deployment? Its build stops and cannot be resumed; a new deployment is needed.',
  summarize: (d, { baseUrl }) => ({
    text: `Deployment ${deploymentLabel(d)} cancelled`,
    url: inspectorUrl(baseUrl, d),
  }),
  async run({ api }, { id }) {
    try {
      return await api.patch(`/v12/deployments/${id}/cancel`)
    } catch (err) {
      if (
        !(err instanceof AppError) ||
        (err.extras.upstreamStatus !== 400 && err.extras.upstreamStatus !== 409)
      )
        throw err
      // Vercel refuses tersely; say which state the deployment is in and why that matters.
      const current = await api.get(`/v13/deployments/${id}`).catch(() => undefined)
      const state = current?.readyState ?? current?.state
      if (!state || CANCELLABLE.has(state)) throw err
      throw new AppError(
        'conflict',
        `deployment ${id} is ${state}; only a QUEUED or BUILDING deployment can be cancelled`,
        { upstreamStatus: err.extras.upstreamStatus },
      )
    }
  },
})
