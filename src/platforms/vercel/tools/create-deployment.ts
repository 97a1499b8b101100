import { z } from 'zod'
import { AppError, invalidInput } from '../../../core/errors.ts'
import type { ApiClient } from '../../../core/http/api-client.ts'
import { defineTool } from '../../../core/tools/define.ts'
import { deploymentLabel, inspectorUrl } from '../links.ts'
import { Deployment, ProjectRef } from '../schemas.ts'
import { projectOptions } from '../options.ts'

const Environment = z.enum(['production', 'preview', 'development'])

// What "custom configuration" means for a deployment: Vercel's projectSettings overrides.
const BuildSettings = z.strictObject({
  framework: z.string().trim().min(1).max(50).optional(),
  build_command: z.string().max(256).optional(),
  install_command: z.string().max(256).optional(),
  dev_command: z.string().max(256).optional(),
  output_directory: z.string().max(256).optional(),
  root_directory: z.string().max(256).optional(),
  node_version: z.enum(['24.x', '22.x', '20.x', '18.x']).optional(),
})

/** The catalogue's snake_case settings (docs/tools.md) under Vercel's own camelCase names. */
function projectSettings(
  settings: z.infer<typeof BuildSettings> | undefined,
): Record<string, unknown> | undefined {
  if (!settings) return undefined
  return {
    framework: settings.framework,
    buildCommand: settings.build_command,
    installCommand: settings.install_command,
    devCommand: settings.dev_command,
    outputDirectory: settings.output_directory,
    rootDirectory: settings.root_directory,
    nodeVersion: settings.node_version,
  }
}

const GitRepo = z.strictObject({
  type: z.enum(['github', 'gitlab', 'bitbucket']).default('github'),
  org: z.string().trim().min(1).max(100),
  repo: z.string().trim().min(1).max(100),
})

export const createDeployment = defineTool({
  id: 'vercel.create_deployment',
  title: 'Create Deployment',
  description:
    'Create a deployment of a project, optionally from a git branch, to production, preview or development, with custom build settings and metadata. An unknown project is refused unless create_project_if_missing is set.',
  effect: 'write',
  options: { project: projectOptions },
  input: z.object({
    project: ProjectRef.describe('Project id (prj_…) or name'),
    branch: z
      .string()
      .trim()
      .min(1)
      .max(250)
      .regex(/^[^\s~^:?*[\\]+$/, 'must be a git branch name')
      .optional(),
    environment: Environment.default('preview'),
    repository: GitRepo.optional().describe(
      'Deploy from this repository (with branch); otherwise the branch is recorded as the commit ref',
    ),
    settings: BuildSettings.optional().describe('Build settings for this deployment (projectSettings)'),
    meta: z
      .record(
        z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'meta keys are letters, digits, _ and -'),
        z.string().max(256),
      )
      .optional(),
    // Vercel creates a project for any unknown name, so a typo would silently make a new one.
    create_project_if_missing: z
      .boolean()
      .default(false)
      .describe(
        'Create the project when no project has this name; off by default, so a mistyped name is refused',
      ),
  }),
  output: Deployment.extend({
    project_created: z.boolean().describe('Whether this deployment created its project'),
  }),
  summarize: (d, { baseUrl }) => ({
    text: `Deployment ${deploymentLabel(d)} created${d.project_created ? `; project ${d.name} was created for it` : ''}`,
    url: inspectorUrl(baseUrl, d),
  }),
  async run({ api }, input) {
    const existing = await projectNamed(api, input.project)
    if (!existing && !input.create_project_if_missing) {
      throw invalidInput([
        {
          field: 'input.project',
          message: `no project is named ${input.project} on this account; check the name, or set create_project_if_missing to create it`,
        },
      ])
    }
    const body: Record<string, unknown> = {
      // `name` becomes the deployment's name (and its event's and URL's), so a project chosen by its id
      // in the picker still deploys under the project's own name, as Vercel's dashboard and CLI do.
      name: existing?.name ?? input.project,
      // Vercel: `project` takes precedence over `name` for choosing the project.
      project: input.project,
      meta: input.meta,
      projectSettings: projectSettings(input.settings),
      ...target(input.environment),
    }
    if (input.repository) {
      body.gitSource = { ...input.repository, ref: input.branch ?? 'main' }
    } else if (input.branch) {
      // As the Vercel CLI does when deploying from a local checkout: the branch rides in gitMetadata.
      body.gitMetadata = { commitRef: input.branch }
    }
    return { ...(await api.post('/v13/deployments', body)), project_created: !existing }
  },
})

/** `GET /v9/projects/{idOrName}` answers 404 for a project that does not exist (docs/platforms/vercel.md, "Facts the product relies on"). */
async function projectNamed(api: ApiClient, project: string): Promise<{ name: string } | undefined> {
  try {
    const found = await api.get<{ name?: unknown }>(`/v9/projects/${encodeURIComponent(project)}`)
    return { name: typeof found.name === 'string' ? found.name : project }
  } catch (err) {
    if (err instanceof AppError && err.extras.upstreamStatus === 404) return undefined
    throw err
  }
}

/**
 * production → `target: production`; preview → no target (Vercel's default); development → the
 * custom environment named "development" (Vercel has no built-in development deployment target).
 */
function target(environment: z.infer<typeof Environment>): Record<string, string> {
  switch (environment) {
    case 'production':
      return { target: 'production' }
    case 'preview':
      return {}
    case 'development':
      return { customEnvironmentSlugOrId: 'development' }
  }
}
