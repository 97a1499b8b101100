import { conflict, notFound, vercelError } from './errors.ts'
import { emptyResponse, isRecord, jsonResponse, type SandboxResponse } from './http.ts'
import { envId, projectId } from './ids.ts'
import {
  ENV_TARGETS,
  ENV_TYPES,
  type EnvTarget,
  type EnvType,
  type EnvVar,
  newProject,
  type Project,
} from './model.ts'
import { envJson, listedEnvJson, projectDomainJson, projectJson } from './presenters.ts'
import type { ApiContext, ApiRoute } from './router.ts'
import type { VercelSandbox } from './sandbox.ts'
import {
  bodyObject,
  FRAMEWORKS,
  guarded,
  invalid,
  NODE_VERSIONS,
  optNullableString,
  optString,
  queryFlag,
  queryInt,
  reqString,
  validProjectName,
} from './validate.ts'

export function createProject(
  sandbox: VercelSandbox,
  ownerId: string,
  name: string,
  opts: { framework?: string | null; nodeVersion?: string } = {},
): Project {
  const project = newProject({
    id: projectId(),
    ownerId,
    name,
    framework: opts.framework ?? null,
    nodeVersion: opts.nodeVersion,
    createdAt: sandbox.now(),
  })
  sandbox.store.projects.set(project.id, project)
  return project
}

const projectNotFound = () => notFound('Project not found.')

function findProject(ctx: ApiContext): Project | undefined {
  return ctx.store.project(ctx.ownerId, ctx.params.idOrName as string)
}

function withProject(fn: (ctx: ApiContext, project: Project) => SandboxResponse) {
  return guarded((ctx: ApiContext) => {
    const project = findProject(ctx)
    return project ? fn(ctx, project) : projectNotFound()
  })
}

/**
 * `GET /v9|v10/projects`: most recently updated first. `from`/`until` take the `pagination.next`
 * timestamp (projects updated before it) — the OAS calls `from` a continuation; the sandbox's
 * continuation is that timestamp.
 */
const list = guarded((ctx: ApiContext) => {
  const q = ctx.req.query
  const limit = queryInt(q, 'limit', { min: 1, max: 100 }) ?? 20
  const before = queryInt(q, 'until') ?? queryInt(q, 'from')
  const search = q.get('search')?.toLowerCase()
  const matching = [...ctx.store.projects.values()]
    .filter((p) => p.ownerId === ctx.ownerId)
    .filter((p) => !search || p.name.toLowerCase().includes(search))
    .filter((p) => before === undefined || p.updatedAt < before)
    .sort((a, b) => b.updatedAt - a.updatedAt || a.id.localeCompare(b.id))
  const page = matching.slice(0, limit)
  const last = page[page.length - 1]
  return jsonResponse(200, {
    projects: page.map((p) => projectJson(ctx.store, p)),
    pagination: {
      count: page.length,
      next: matching.length > page.length && last ? last.updatedAt : null,
      prev: null,
    },
  })
})

const nameTaken = (ctx: ApiContext, name: string, except?: string) =>
  [...ctx.store.projects.values()].some(
    (p) => p.ownerId === ctx.ownerId && p.name === name && p.id !== except,
  )

function applySettings(project: Project, body: Record<string, unknown>): void {
  if (body.framework !== undefined) {
    if (body.framework !== null && (typeof body.framework !== 'string' || !FRAMEWORKS.has(body.framework))) {
      invalid('`framework` should be equal to one of the allowed values')
    }
    project.framework = body.framework as string | null
  }
  if (body.nodeVersion !== undefined) {
    if (typeof body.nodeVersion !== 'string' || !NODE_VERSIONS.includes(body.nodeVersion))
      invalid(`\`nodeVersion\` should be one of ${NODE_VERSIONS.join(', ')}`)
    project.nodeVersion = body.nodeVersion
  }
  for (const key of [
    'buildCommand',
    'devCommand',
    'installCommand',
    'outputDirectory',
    'rootDirectory',
  ] as const) {
    const v = optNullableString(body, key)
    if (v !== undefined) project[key] = v
  }
  if (body.publicSource !== undefined) {
    if (body.publicSource !== null && typeof body.publicSource !== 'boolean')
      invalid('`publicSource` should be boolean')
    project.publicSource = body.publicSource as boolean | null
  }
  const region = optString(body, 'serverlessFunctionRegion')
  if (region !== undefined) project.serverlessFunctionRegion = region
}

/** `POST /v10|v11/projects`; a taken name is 409 conflict (V-OAS lists 409; wording is the sandbox's). */
const create = guarded((ctx: ApiContext) => {
  const body = bodyObject(ctx.body)
  const name = reqString(body, 'name')
  if (!validProjectName(name))
    invalid(
      '`name` should be lowercase, up to 100 characters of letters, digits, ".", "_", "-" and not contain "---"',
    )
  if (nameTaken(ctx, name)) return conflict(`A project with the name "${name}" already exists.`)
  let link: Record<string, unknown> | null = null
  if (body.gitRepository !== undefined) {
    if (
      !isRecord(body.gitRepository) ||
      typeof body.gitRepository.repo !== 'string' ||
      typeof body.gitRepository.type !== 'string'
    ) {
      invalid('`gitRepository` should be {type, repo}')
    }
    link = {
      type: body.gitRepository.type,
      repo: body.gitRepository.repo,
      productionBranch: 'main',
      createdAt: ctx.now,
    }
  }
  const envInputs = body.environmentVariables
  if (envInputs !== undefined && !Array.isArray(envInputs)) invalid('`environmentVariables` should be array')
  const draft = createProject(ctx.sandbox, ctx.ownerId, name)
  try {
    applySettings(draft, body)
    draft.link = link
    for (const [i, input] of ((envInputs as unknown[]) ?? []).entries()) {
      draft.envs.push(parseEnv(ctx, input, `environmentVariables[${i}]`, 'encrypted'))
    }
  } catch (error) {
    ctx.store.projects.delete(draft.id)
    throw error
  }
  return jsonResponse(200, projectJson(ctx.store, draft))
})

const show = withProject((ctx, project) => jsonResponse(200, projectJson(ctx.store, project)))

const update = withProject((ctx, project) => {
  const body = bodyObject(ctx.body)
  const name = optString(body, 'name')
  if (name !== undefined) {
    if (!validProjectName(name))
      invalid('`name` should be lowercase, up to 100 characters of letters, digits, ".", "_", "-"')
    if (nameTaken(ctx, name, project.id)) return conflict(`A project with the name "${name}" already exists.`)
  }
  const copy = { ...project }
  applySettings(copy, body)
  Object.assign(project, copy, { name: name ?? project.name, updatedAt: ctx.now })
  return jsonResponse(200, projectJson(ctx.store, project))
})

/** `DELETE /v9/projects/{idOrName}`: 204; the project's deployments and webhook filters go with it. */
const remove = withProject((ctx, project) => {
  ctx.store.projects.delete(project.id)
  for (const d of [...ctx.store.deployments.values()])
    if (d.projectId === project.id) ctx.store.deployments.delete(d.id)
  for (const hook of ctx.store.webhooks.values())
    hook.projectIds = hook.projectIds.filter((id) => id !== project.id)
  return emptyResponse(204)
})

// ---- environment variables --------------------------------------------------------------

function parseTargets(value: unknown, field: string): EnvTarget[] {
  const list = typeof value === 'string' ? [value] : value
  if (
    !Array.isArray(list) ||
    list.length === 0 ||
    !list.every((t) => (ENV_TARGETS as readonly unknown[]).includes(t))
  ) {
    invalid(`\`${field}.target\` should be an array of ${ENV_TARGETS.join(', ')}`)
  }
  return [...new Set(list as EnvTarget[])]
}

function parseEnv(ctx: ApiContext, input: unknown, field: string, defaultType?: EnvType): EnvVar {
  if (!isRecord(input)) invalid(`\`${field}\` should be object`)
  const key = reqString(input, 'key', `${field}.key`)
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
    invalid(
      `\`${field}.key\` may only contain letters, digits and underscores and must not start with a digit`,
    )
  const value = input.value
  if (typeof value !== 'string') invalid(`missing required property \`${field}.value\``)
  const type = input.type ?? defaultType
  if (!(ENV_TYPES as readonly unknown[]).includes(type))
    invalid(`\`${field}.type\` should be one of ${ENV_TYPES.join(', ')}`)
  const target = parseTargets(input.target, field)
  const gitBranch = optNullableString(input, 'gitBranch') ?? null
  if (gitBranch !== null && (target.length !== 1 || target[0] !== 'preview'))
    invalid(`\`${field}.gitBranch\` requires target to be ["preview"]`)
  if (gitBranch !== null && gitBranch.length > 250)
    invalid(`\`${field}.gitBranch\` should be at most 250 characters`)
  const comment = optNullableString(input, 'comment') ?? null
  if (comment !== null && comment.length > 500)
    invalid(`\`${field}.comment\` should be at most 500 characters`)
  return {
    id: envId(),
    key,
    value,
    type: type as EnvType,
    target,
    gitBranch,
    comment,
    configurationId: ctx.token.installationId,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    createdBy: ctx.user.id,
    updatedBy: null,
  }
}

/** An existing variable with the same key, an overlapping target and the same git branch. */
function conflicting(
  project: Project,
  env: Pick<EnvVar, 'key' | 'target' | 'gitBranch' | 'id'>,
): EnvVar | undefined {
  return project.envs.find(
    (e) =>
      e.id !== env.id &&
      e.key === env.key &&
      (e.gitBranch ?? null) === (env.gitBranch ?? null) &&
      e.target.some((t) => env.target.includes(t)),
  )
}

const conflictMessage = (env: EnvVar) =>
  `A variable with the name \`${env.key}\` already exists for the target ${env.target.join(',')} on branch ${env.gitBranch ?? 'undefined'}`

const listEnv = withProject((ctx, project) => {
  const q = ctx.req.query
  const decrypt = queryFlag(q, 'decrypt')
  const branch = q.get('gitBranch')
  const envs = project.envs.filter((e) => !branch || e.gitBranch === branch || e.gitBranch === null)
  return jsonResponse(200, {
    envs: envs.map((e) => listedEnvJson(e, decrypt)),
    pagination: { count: envs.length, next: null, prev: null },
  })
})

/**
 * `POST /v10/projects/{idOrName}/env` (sources: Vercel projects, env vars, domains, teams): one object or an array; 201 `{created, failed}`.
 * A conflict (same key, overlapping target, same branch) lands in `failed` with code
 * `ENV_CONFLICT` [UNV code]; a single-object request whose only variable conflicts answers
 * 409 with that error instead. `?upsert=true` replaces the conflicting variable. Malformed
 * input rejects the whole request with 400.
 */
const createEnv = withProject((ctx, project) => {
  const single = !Array.isArray(ctx.body)
  const inputs = single ? [ctx.body] : (ctx.body as unknown[])
  if (inputs.length === 0) invalid('the body should contain at least one variable')
  const upsert = queryFlag(ctx.req.query, 'upsert')
  const parsed = inputs.map((input, i) => parseEnv(ctx, input, single ? 'body' : `body[${i}]`))
  const created: Record<string, unknown>[] = []
  const failed: Record<string, unknown>[] = []
  for (const env of parsed) {
    const existing = conflicting(project, env)
    if (existing && !upsert) {
      failed.push({
        error: {
          code: 'ENV_CONFLICT',
          message: conflictMessage(env),
          key: env.key,
          envVarId: existing.id,
          envVarKey: existing.key,
          action: 'create',
          target: env.target,
          gitBranch: env.gitBranch ?? undefined,
        },
      })
      continue
    }
    if (existing) {
      Object.assign(existing, {
        value: env.value,
        type: env.type,
        target: env.target,
        comment: env.comment,
        updatedAt: ctx.now,
        updatedBy: ctx.user.id,
      })
      created.push(envJson(existing, false))
      continue
    }
    project.envs.push(env)
    created.push(envJson(env, false))
  }
  project.updatedAt = ctx.now
  if (single && failed.length)
    return vercelError(409, 'ENV_CONFLICT', conflictMessage(parsed[0] as EnvVar), {
      key: (parsed[0] as EnvVar).key,
    })
  return jsonResponse(201, { created: single ? created[0] : created, failed })
})

const envNotFound = (id: string) => notFound(`Could not find the environment variable: ${id}`)

const showEnv = withProject((ctx, project) => {
  const env = project.envs.find((e) => e.id === ctx.params.id)
  return env ? jsonResponse(200, envJson(env, true)) : envNotFound(ctx.params.id as string)
})

const updateEnv = withProject((ctx, project) => {
  const env = project.envs.find((e) => e.id === ctx.params.id)
  if (!env) return envNotFound(ctx.params.id as string)
  const body = bodyObject(ctx.body)
  const merged = parseEnv(
    ctx,
    {
      key: body.key ?? env.key,
      value: body.value ?? env.value,
      type: body.type ?? env.type,
      target: body.target ?? env.target,
      gitBranch: body.gitBranch === undefined ? env.gitBranch : body.gitBranch,
      comment: body.comment === undefined ? env.comment : body.comment,
    },
    'body',
  )
  const clash = conflicting(project, { ...merged, id: env.id })
  if (clash) return vercelError(409, 'ENV_CONFLICT', conflictMessage(merged), { key: merged.key })
  Object.assign(env, {
    key: merged.key,
    value: merged.value,
    type: merged.type,
    target: merged.target,
    gitBranch: merged.gitBranch,
    comment: merged.comment,
    updatedAt: ctx.now,
    updatedBy: ctx.user.id,
  })
  project.updatedAt = ctx.now
  return jsonResponse(200, envJson(env, false))
})

const removeEnv = withProject((ctx, project) => {
  const env = project.envs.find((e) => e.id === ctx.params.id)
  if (!env) return envNotFound(ctx.params.id as string)
  project.envs = project.envs.filter((e) => e !== env)
  project.updatedAt = ctx.now
  return jsonResponse(200, envJson(env, false))
})

// ---- project domains ---------------------------------------------------------------------

const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/

function apexOf(name: string): string {
  const labels = name.split('.')
  return labels.slice(-2).join('.')
}

const listDomains = withProject((ctx, project) =>
  jsonResponse(200, {
    domains: project.domains.map(projectDomainJson),
    pagination: { count: project.domains.length, next: null, prev: null },
  }),
)

const showDomain = withProject((ctx, project) => {
  const domain = project.domains.find((d) => d.name === ctx.params.domain)
  return domain
    ? jsonResponse(200, projectDomainJson(domain))
    : notFound(`The domain "${ctx.params.domain}" was not found on this project`)
})

/**
 * `POST /v10/projects/{idOrName}/domains` {name, redirect?, redirectStatusCode?, gitBranch?}.
 * Verified when it is a `*.vercel.app` name or its apex is a domain of the same owner; otherwise
 * unverified with a TXT challenge. A name already on another project is 409 `domain_already_in_use`.
 */
const addDomain = withProject((ctx, project) => {
  const body = bodyObject(ctx.body)
  const name = reqString(body, 'name').toLowerCase()
  if (!DOMAIN_RE.test(name)) invalid('`name` should be a valid domain name')
  const redirect = optNullableString(body, 'redirect') ?? null
  const code = body.redirectStatusCode ?? null
  if (code !== null && ![301, 302, 307, 308].includes(code as number))
    invalid('`redirectStatusCode` should be one of 301, 302, 307, 308')
  if (redirect === name) invalid('A domain cannot redirect to itself')
  const gitBranch = optNullableString(body, 'gitBranch') ?? null
  for (const other of ctx.store.projects.values()) {
    if (other.domains.some((d) => d.name === name)) {
      if (other.id === project.id)
        return conflict(`The domain "${name}" is already assigned to this project.`, 'domain_already_in_use')
      return conflict(
        `Cannot add ${name} since it's already in use by another project.`,
        'domain_already_in_use',
      )
    }
  }
  const apexName = apexOf(name)
  const owned = ctx.store.domains.get(apexName)
  const verified = name.endsWith('.vercel.app') || (owned !== undefined && owned.ownerId === ctx.ownerId)
  const domain = {
    name,
    apexName,
    projectId: project.id,
    redirect,
    redirectStatusCode: code as number | null,
    gitBranch,
    verified,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  }
  project.domains.push(domain)
  project.updatedAt = ctx.now
  return jsonResponse(200, projectDomainJson(domain))
})

const removeDomain = withProject((ctx, project) => {
  const name = (ctx.params.domain as string).toLowerCase()
  if (!project.domains.some((d) => d.name === name))
    return notFound(`The domain "${name}" was not found on this project`)
  project.domains = project.domains.filter((d) => d.name !== name)
  project.updatedAt = ctx.now
  return jsonResponse(200, {})
})

/**
 * Routes at the versions of the brief and of the OAS: Vercel keeps serving older versions, so
 * list is served at v9 and v10, create at v10 and v11, env list at v9 and v10.
 */
export const projectRoutes: ApiRoute[] = [
  { method: 'GET', path: '/v9/projects', scoped: true, handle: list },
  { method: 'GET', path: '/v10/projects', scoped: true, handle: list },
  { method: 'POST', path: '/v10/projects', scoped: true, handle: create },
  { method: 'POST', path: '/v11/projects', scoped: true, handle: create },
  { method: 'GET', path: '/v9/projects/{idOrName}', scoped: true, handle: show },
  { method: 'PATCH', path: '/v9/projects/{idOrName}', scoped: true, handle: update },
  { method: 'DELETE', path: '/v9/projects/{idOrName}', scoped: true, handle: remove },
  { method: 'GET', path: '/v9/projects/{idOrName}/env', scoped: true, handle: listEnv },
  { method: 'GET', path: '/v10/projects/{idOrName}/env', scoped: true, handle: listEnv },
  { method: 'POST', path: '/v10/projects/{idOrName}/env', scoped: true, handle: createEnv },
  { method: 'GET', path: '/v1/projects/{idOrName}/env/{id}', scoped: true, handle: showEnv },
  { method: 'PATCH', path: '/v9/projects/{idOrName}/env/{id}', scoped: true, handle: updateEnv },
  { method: 'DELETE', path: '/v9/projects/{idOrName}/env/{id}', scoped: true, handle: removeEnv },
  { method: 'GET', path: '/v9/projects/{idOrName}/domains', scoped: true, handle: listDomains },
  { method: 'GET', path: '/v9/projects/{idOrName}/domains/{domain}', scoped: true, handle: showDomain },
  { method: 'POST', path: '/v10/projects/{idOrName}/domains', scoped: true, handle: addDomain },
  { method: 'DELETE', path: '/v9/projects/{idOrName}/domains/{domain}', scoped: true, handle: removeDomain },
]
