import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Deployment, DeploymentState, ProjectRef } from '../schemas.ts'
import { plural } from '../links.ts'
import { projectOptions } from '../options.ts'

const MAX_LIMIT = 100

export const listDeployments = defineTool({
  id: 'vercel.list_deployments',
  title: 'List Deployments',
  description:
    'List deployments, newest first, filtered by project, environment, state and creation time. Pass next_cursor back for the next page.',
  effect: 'read',
  options: { project: projectOptions },
  input: z.object({
    project: ProjectRef.optional().describe('Project id (prj_…) or name'),
    environment: z.enum(['production', 'preview']).optional(),
    state: z.array(DeploymentState).min(1).max(6).optional().describe('Any of these states'),
    since: z.iso.datetime({ offset: true }).optional().describe('Created at or after (ISO 8601)'),
    until: z.iso.datetime({ offset: true }).optional().describe('Created before (ISO 8601)'),
    limit: z.number().int().min(1).max(MAX_LIMIT).default(20),
    cursor: z
      .string()
      .regex(/^\d{1,16}$/, 'must be a next_cursor returned by List Deployments')
      .optional(),
  }),
  output: z.object({ deployments: z.array(Deployment), next_cursor: z.string().nullable() }),
  summarize: ({ deployments, next_cursor }) => ({
    text: `${plural(deployments.length, 'deployment')}${next_cursor ? ', more on the next page' : ''}`,
  }),
  async run({ api }, input) {
    const body = await api.get('/v6/deployments', {
      // /v6/deployments filters by projectId but accepts a name there too, as the dashboard does.
      projectId: input.project,
      target: input.environment,
      state: input.state?.join(','),
      since: input.since ? Date.parse(input.since) : undefined,
      // Vercel pages backwards in time: `until` is the previous page's pagination.next.
      until: input.cursor ?? (input.until ? Date.parse(input.until) : undefined),
      limit: input.limit,
    })
    const next = body.pagination?.next
    // The v6 list names a deployment's id `uid` (v13 says `id`); give agents one name for it.
    const deployments = (body.deployments as any[]).map((d) => ({ id: d.id ?? d.uid, ...d }))
    return {
      deployments,
      next_cursor: typeof next === 'number' || typeof next === 'string' ? String(next) : null,
    }
  },
})
