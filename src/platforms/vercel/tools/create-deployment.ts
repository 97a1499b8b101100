import { z } from 'zod'
import { defineTool } from '../../../core/tools/define.ts'
import { Deployment, ProjectRef } from '../schemas.ts'
import { projectOptions } from '../options.ts'

const Environment = z.enum(['production', 'preview', 'development'])

// What "custom configuration" means for a deployment: Vercel's projectSettings overrides.
const BuildSettings = z.strictObject({
  framework: z.string().trim().min(1).max(50).optional(),
  buildCommand: z.string().max(256).optional(),
  installCommand: z.string().max(256).optional(),
  devCommand: z.string().max(256).optional(),
  outputDirectory: z.string().max(256).optional(),
  rootDirectory: z.string().max(256).optional(),
  nodeVersion: z.enum(['24.x', '22.x', '20.x', '18.x']).optional(),
})

const GitRepo = z.strictObject({
  type: z.enum(['github', 'gitlab', 'bitbucket']).default('github'),
  org: z.string().trim().min(1).max(100),
  repo: z.string().trim().min(1).max(100),
})

export const createDeployment = defineTool({
  id: 'vercel.create_deployment',
  title: 'Create Deployment',
  description: 'Create a deployment of a project, optionally from a git branch, to production, preview or development, with custom build settings and metadata.',
  effect: 'write',
  options: { project: projectOptions },
  input: z.object({
    project: ProjectRef.describe('Project id (prj_…) or name'),
    branch: z.string().trim().min(1).max(250).regex(/^[^\s~^:?*[\\]+$/, 'must be a git branch name').optional(),
    environment: Environment.default('preview'),
    repository: GitRepo.optional().describe('Deploy from this repository (with branch); otherwise the branch is recorded as the commit ref'),
    settings: BuildSettings.optional().describe('Build settings for this deployment (projectSettings)'),
    meta: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'meta keys are letters, digits, _ and -'), z.string().max(256)).optional(),
  }),
  output: Deployment,
  async run({ api }, input) {
    const body: Record<string, unknown> = {
      name: input.project,
      // Vercel: `project` takes precedence over `name` for choosing the project.
      project: input.project,
      meta: input.meta,
      projectSettings: input.settings,
      ...target(input.environment),
    }
    if (input.repository) {
      body.gitSource = { ...input.repository, ref: input.branch ?? 'main' }
    } else if (input.branch) {
      // As the Vercel CLI does when deploying from a local checkout: the branch rides in gitMetadata.
      body.gitMetadata = { commitRef: input.branch }
    }
    return api.post('/v13/deployments', body)
  },
})

/**
 * production → `target: production`; preview → no target (Vercel's default); development → the
 * custom environment named "development" (Vercel has no built-in development deployment target).
 */
function target(environment: z.infer<typeof Environment>): Record<string, string> {
  switch (environment) {
    case 'production': return { target: 'production' }
    case 'preview': return {}
    case 'development': return { customEnvironmentSlugOrId: 'development' }
  }
}
