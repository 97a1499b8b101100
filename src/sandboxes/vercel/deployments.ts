import { notFound, vercelError } from './errors.ts'
import { isRecord, jsonResponse } from './http.ts'
import { DEPLOYMENT_STATES, type Deployment, type Project } from './model.ts'
import { deploymentJson, deploymentListItem } from './presenters.ts'
import { createProject } from './projects.ts'
import type { ApiContext, ApiRoute } from './router.ts'
import {
  bodyObject,
  FRAMEWORKS,
  guarded,
  invalid,
  NODE_VERSIONS,
  optString,
  queryInt,
  queryList,
  validProjectName,
} from './validate.ts'

const deploymentNotFound = () => notFound('Deployment not found')

function findDeployment(ctx: ApiContext, idOrUrl: string): Deployment | undefined {
  const d = ctx.store.deployment(idOrUrl)
  return d && d.ownerId === ctx.ownerId ? d : undefined
}

/** `GET /v6/deployments`: newest first; `pagination.next` is the createdAt to pass as `until` (sources: Vercel deployments). */
const list = guarded((ctx: ApiContext) => {
  const q = ctx.req.query
  const limit = queryInt(q, 'limit', { min: 1, max: 100 }) ?? 20
  const since = queryInt(q, 'since') ?? queryInt(q, 'from')
  const until = queryInt(q, 'until') ?? queryInt(q, 'to')
  const states = queryList(q, 'state').map((s) => s.toUpperCase())
  for (const s of states)
    if (!(DEPLOYMENT_STATES as readonly string[]).includes(s))
      invalid(`\`state\` should be one of ${DEPLOYMENT_STATES.join(', ')}`)
  const projectRef = q.get('projectId')
  let projectIds = queryList(q, 'projectIds')
  if (projectRef) projectIds = [ctx.store.project(ctx.ownerId, projectRef)?.id ?? projectRef]
  const target = q.get('target')
  const app = q.get('app')
  const users = queryList(q, 'users')
  const branch = q.get('branch')
  const sha = q.get('sha')
  const matching = [...ctx.store.deployments.values()]
    .filter((d) => d.ownerId === ctx.ownerId)
    .filter((d) => !projectIds.length || projectIds.includes(d.projectId))
    .filter((d) => !target || (target === 'preview' ? d.target === null : d.target === target))
    .filter((d) => !states.length || states.includes(d.readyState))
    .filter((d) => !app || d.name === app)
    .filter((d) => !users.length || users.includes(d.creatorId))
    .filter((d) => !branch || d.meta.githubCommitRef === branch)
    .filter((d) => !sha || d.meta.githubCommitSha === sha)
    .filter((d) => since === undefined || d.createdAt > since)
    .filter((d) => until === undefined || d.createdAt < until)
    .sort((a, b) => b.createdAt - a.createdAt)
  const page = matching.slice(0, limit)
  const last = page[page.length - 1]
  return jsonResponse(200, {
    deployments: page.map((d) => deploymentListItem(ctx.store, d)),
    pagination: {
      count: page.length,
      next: matching.length > page.length && last ? last.createdAt : null,
      prev: page[0] ? page[0].createdAt : null,
    },
  })
})

const show = (ctx: ApiContext) => {
  const d = findDeployment(ctx, ctx.params.idOrUrl as string)
  return d ? jsonResponse(200, deploymentJson(ctx.store, d)) : deploymentNotFound()
}

/** Derives `meta.githubCommitRef` etc. from `gitSource`, as Vercel's git deployments carry them. */
function gitMeta(gitSource: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {}
  const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined)
  const type = String(gitSource.type)
  const prefix = type.startsWith('github') ? 'github' : type
  const ref = str(gitSource.ref)
  const sha = str(gitSource.sha)
  if (ref) out[`${prefix}CommitRef`] = ref
  if (sha) out[`${prefix}CommitSha`] = sha
  if (prefix === 'github') {
    if (str(gitSource.org)) out.githubOrg = str(gitSource.org) as string
    if (str(gitSource.repo)) out.githubRepo = str(gitSource.repo) as string
    if (str(gitSource.repoId)) out.githubRepoId = str(gitSource.repoId) as string
  }
  return out
}

const GIT_TYPES = ['github', 'github-limited', 'gitlab', 'bitbucket']

/**
 * `POST /v13/deployments` (sources: Vercel deployments). A `name` (or `project`) that names no project creates it, as
 * Vercel does on a first deployment. `target`: unset/"preview" → null, "production", "staging",
 * any other string is taken as a custom environment id (target null). `source` is "git" with a
 * gitSource, else "cli" (the sandbox's choice among the OAS enum).
 */
const create = guarded((ctx: ApiContext) => {
  const body = bodyObject(ctx.body)
  const projectRef = optString(body, 'project')
  const name = optString(body, 'name')
  if (!projectRef && !name) invalid('missing required property `name`')
  const targetRaw = body.target
  if (targetRaw !== undefined && targetRaw !== null && typeof targetRaw !== 'string')
    invalid('`target` should be string')
  let target: string | null = null
  let customEnvironmentId: string | null = null
  if (targetRaw === 'production' || targetRaw === 'staging') target = targetRaw
  else if (typeof targetRaw === 'string' && targetRaw !== '' && targetRaw !== 'preview')
    customEnvironmentId = targetRaw
  const meta: Record<string, string> = {}
  if (body.meta !== undefined) {
    if (!isRecord(body.meta)) invalid('`meta` should be object')
    for (const [k, v] of Object.entries(body.meta)) {
      if (typeof v !== 'string') invalid(`\`meta.${k}\` should be string`)
      meta[k] = v
    }
  }
  let gitSource: Record<string, unknown> | null = null
  if (body.gitSource !== undefined) {
    if (!isRecord(body.gitSource)) invalid('`gitSource` should be object')
    if (!GIT_TYPES.includes(String(body.gitSource.type)))
      invalid(`\`gitSource.type\` should be one of ${GIT_TYPES.join(', ')}`)
    if (body.files !== undefined) invalid('`files` and `gitSource` cannot be used together')
    gitSource = { ...body.gitSource }
  }
  if (body.files !== undefined && !Array.isArray(body.files)) invalid('`files` should be array')
  let settings: Record<string, unknown> = {}
  if (body.projectSettings !== undefined) {
    if (!isRecord(body.projectSettings)) invalid('`projectSettings` should be object')
    settings = body.projectSettings
    const fw = settings.framework
    if (fw !== undefined && fw !== null && (typeof fw !== 'string' || !FRAMEWORKS.has(fw)))
      invalid('`projectSettings.framework` should be equal to one of the allowed values')
    const nv = settings.nodeVersion
    if (nv !== undefined && (typeof nv !== 'string' || !NODE_VERSIONS.includes(nv)))
      invalid(`\`projectSettings.nodeVersion\` should be one of ${NODE_VERSIONS.join(', ')}`)
  }
  let project: Project | undefined
  if (projectRef) {
    project = ctx.store.project(ctx.ownerId, projectRef)
    if (!project && projectRef.startsWith('prj_')) return notFound('Project not found')
  }
  const projectName = projectRef ?? (name as string)
  project ??= ctx.store.project(ctx.ownerId, projectName)
  if (!project) {
    if (!validProjectName(projectName))
      invalid('`name` should be lowercase, up to 100 characters of letters, digits, ".", "_", "-"')
    project = createProject(ctx.sandbox, ctx.ownerId, projectName, {
      framework: typeof settings.framework === 'string' ? settings.framework : null,
      nodeVersion: typeof settings.nodeVersion === 'string' ? settings.nodeVersion : undefined,
    })
  }
  const gitMetadata = isRecord(body.gitMetadata) ? body.gitMetadata : {}
  const derived = gitSource
    ? gitMeta(gitSource)
    : typeof gitMetadata.commitRef === 'string'
      ? { githubCommitRef: gitMetadata.commitRef }
      : {}
  const d = ctx.sandbox.createDeployment({
    project,
    creatorId: ctx.user.id,
    name: name ?? project.name,
    target,
    customEnvironmentId,
    meta: { ...derived, ...meta },
    gitSource,
    source: gitSource ? 'git' : 'cli',
  })
  return jsonResponse(200, deploymentJson(ctx.store, d))
})

/** `DELETE /v13/deployments/{id}` (or `?url=`): `{uid, state: "DELETED"}` (V-OAS). */
const remove = (ctx: ApiContext) => {
  const ref = ctx.req.query.get('url') || (ctx.params.id as string)
  const d = findDeployment(ctx, ref)
  if (!d) return deploymentNotFound()
  ctx.store.deployments.delete(d.id)
  return jsonResponse(200, { uid: d.id, state: 'DELETED' })
}

/**
 * `PATCH /v12/deployments/{id}/cancel` cancels "a deployment which is currently building" (V-OAS).
 * QUEUED, INITIALIZING and BUILDING can be canceled; other states get 400 bad_request — the OAS
 * lists 400 without a body, so the wording is the sandbox's.
 */
const cancel = (ctx: ApiContext) => {
  const d = findDeployment(ctx, ctx.params.id as string)
  if (!d) return deploymentNotFound()
  if (!['QUEUED', 'INITIALIZING', 'BUILDING'].includes(d.readyState)) {
    return vercelError(
      400,
      'bad_request',
      `Deployment ${d.id} cannot be canceled because its state is ${d.readyState}`,
    )
  }
  ctx.sandbox.cancelDeployment(d)
  return jsonResponse(200, deploymentJson(ctx.store, d))
}

export const deploymentRoutes: ApiRoute[] = [
  { method: 'GET', path: '/v6/deployments', scoped: true, handle: list },
  // @vercel/sdk 1.28 lists at /v7 (newer than the reference OAS); same query and answer as /v6.
  { method: 'GET', path: '/v7/deployments', scoped: true, handle: list },
  { method: 'POST', path: '/v13/deployments', scoped: true, handle: create },
  { method: 'GET', path: '/v13/deployments/{idOrUrl}', scoped: true, handle: show },
  { method: 'DELETE', path: '/v13/deployments/{id}', scoped: true, handle: remove },
  { method: 'PATCH', path: '/v12/deployments/{id}/cancel', scoped: true, handle: cancel },
]
