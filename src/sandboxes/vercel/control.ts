import {
  emptyResponse,
  isRecord,
  jsonResponse,
  parseBody,
  type IncomingRequest,
  type SandboxResponse,
} from './http.ts'
import type { ControlErrors } from '../kit/control.ts'
import { randomBase64Url } from '../kit/ids.ts'
import { accessToken, teamId as newTeamId, userId as newUserId } from './ids.ts'
import { DEPLOYMENT_STATES, TEAM_ROLES, type DeploymentState, type TeamRole } from './model.ts'
import { deploymentJson, projectJson, teamJson, userJson } from './presenters.ts'
import { createProject } from './projects.ts'
import type { VercelSandbox } from './sandbox.ts'
import { FRAMEWORKS, validProjectName } from './validate.ts'

/** Sandbox-only control API under `/_control` (JSON in and out; errors `{"error": "..."}`). */

const problem = (status: number, message: string) => jsonResponse(status, { error: message })

/** How the shared control routes (kit/control.ts) word Vercel's control errors. */
export const VERCEL_CONTROL_ERRORS: ControlErrors = {
  badRequest: (message) => problem(400, message),
  notFound: (message) => problem(404, message),
}

function ownerRef(sandbox: VercelSandbox, ref: unknown): string | undefined {
  if (typeof ref !== 'string') return undefined
  return sandbox.store.team(ref)?.id ?? sandbox.store.user(ref)?.id
}

function parseMembers(sandbox: VercelSandbox, value: unknown): { uid: string; role: TeamRole }[] | string {
  if (value === undefined) return []
  if (!Array.isArray(value)) return 'members must be an array'
  const out: { uid: string; role: TeamRole }[] = []
  for (const m of value) {
    const ref = typeof m === 'string' ? m : isRecord(m) ? m.user : undefined
    const role = (isRecord(m) && typeof m.role === 'string' ? m.role.toUpperCase() : 'MEMBER') as TeamRole
    const user = typeof ref === 'string' ? sandbox.store.user(ref) : undefined
    if (!user) return `unknown member user: ${String(ref)}`
    if (!TEAM_ROLES.includes(role)) return `role must be one of ${TEAM_ROLES.join(', ')}`
    out.push({ uid: user.id, role })
  }
  return out
}

export async function handleControl(
  sandbox: VercelSandbox,
  req: IncomingRequest,
  path: string,
): Promise<SandboxResponse> {
  const parsed = parseBody(req)
  if (!parsed.ok) return problem(400, `invalid JSON: ${parsed.reason}`)
  const body = isRecord(parsed.value) ? parsed.value : {}
  const store = sandbox.store
  const m = req.method
  const now = sandbox.now()
  const seg = path.split('/').filter(Boolean)

  if (path === '/' && m === 'GET') {
    return jsonResponse(200, {
      routes: [
        'POST /_control/reset',
        'POST /_control/users',
        'POST /_control/teams',
        'POST /_control/teams/{team}/members',
        'POST /_control/projects',
        'POST /_control/deployments',
        'POST /_control/deployments/{id}/finish',
        'POST /_control/tokens',
        'POST /_control/integrations',
        'GET|POST /_control/clock',
        'GET|POST|DELETE /_control/faults[/{id}]',
        'GET|DELETE /_control/requests',
        'GET|DELETE /_control/deliveries, PUT /_control/deliveries/settings',
        'GET|PUT|DELETE /_control/rate-limits',
      ],
    })
  }
  if (path === '/reset' && m === 'POST') return sandbox.control.reset()

  if (path === '/users' && m === 'POST') {
    const username = body.username
    if (typeof username !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(username))
      return problem(400, 'username is required (lowercase letters, digits, -)')
    if (store.user(username)) return problem(409, `user ${username} exists`)
    const email = typeof body.email === 'string' ? body.email : `${username}@vercel.test`
    if (store.user(email)) return problem(409, `email ${email} is taken`)
    const user = {
      id: typeof body.id === 'string' ? body.id : newUserId(),
      username,
      email,
      name: typeof body.name === 'string' ? body.name : username,
      password: typeof body.password === 'string' ? body.password : 'sandbox',
      avatar: null,
      createdAt: now,
      defaultTeamId: null,
    }
    store.users.set(user.id, user)
    return jsonResponse(201, userJson(user))
  }

  if (path === '/teams' && m === 'POST') {
    if (typeof body.name !== 'string' || !body.name) return problem(400, 'name is required')
    const slug =
      typeof body.slug === 'string'
        ? body.slug
        : body.name
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .replace(/^-|-$/g, '')
    if (store.team(slug)) return problem(409, `team ${slug} exists`)
    const members = parseMembers(sandbox, body.members)
    if (typeof members === 'string') return problem(400, members)
    const team = {
      id: typeof body.id === 'string' ? body.id : newTeamId(),
      slug,
      name: body.name,
      description: null,
      createdAt: now,
      updatedAt: now,
      creatorId: members[0]?.uid ?? '',
      members: members.map((mem) => ({ ...mem, createdAt: now })),
    }
    store.teams.set(team.id, team)
    return jsonResponse(201, teamJson(team, null))
  }

  if (seg[0] === 'teams' && seg[2] === 'members' && seg.length === 3 && m === 'POST') {
    const team = store.team(seg[1] as string)
    if (!team) return problem(404, 'unknown team')
    const members = parseMembers(sandbox, [body])
    if (typeof members === 'string') return problem(400, members)
    const member = members[0] as { uid: string; role: TeamRole }
    team.members = team.members.filter((x) => x.uid !== member.uid).concat({ ...member, createdAt: now })
    return jsonResponse(201, teamJson(team, member.uid))
  }

  if (path === '/projects' && m === 'POST') {
    const owner = ownerRef(sandbox, body.owner)
    if (!owner) return problem(400, 'owner (user id/username or team id/slug) is required')
    if (typeof body.name !== 'string' || !validProjectName(body.name))
      return problem(400, 'name is required (a valid project name)')
    if (store.project(owner, body.name)) return problem(409, 'project name taken for this owner')
    if (body.framework !== undefined && body.framework !== null && !FRAMEWORKS.has(String(body.framework)))
      return problem(400, 'unknown framework')
    const project = createProject(sandbox, owner, body.name, {
      framework: (body.framework as string | null | undefined) ?? null,
    })
    return jsonResponse(201, projectJson(store, project))
  }

  if (path === '/deployments' && m === 'POST') {
    const owner = body.owner === undefined ? undefined : ownerRef(sandbox, body.owner)
    const project =
      typeof body.project === 'string'
        ? owner
          ? store.project(owner, body.project)
          : store.anyProject(body.project)
        : undefined
    if (!project)
      return problem(
        400,
        'project (id or name; add owner for a name shared by owners) is required and must exist',
      )
    const state = body.state === undefined ? undefined : String(body.state).toUpperCase()
    if (state !== undefined && !(DEPLOYMENT_STATES as readonly string[]).includes(state))
      return problem(400, `state must be one of ${DEPLOYMENT_STATES.join(', ')}`)
    const creator =
      typeof body.creator === 'string'
        ? store.user(body.creator)
        : (store.users.get(project.ownerId) ??
          store.users.get(store.teams.get(project.ownerId)?.creatorId ?? ''))
    if (!creator) return problem(400, 'creator (a user) is required for a team project without a creator')
    const meta: Record<string, string> = {}
    if (isRecord(body.meta)) for (const [k, v] of Object.entries(body.meta)) meta[k] = String(v)
    if (typeof body.branch === 'string') meta.githubCommitRef = body.branch
    const target = body.target === 'production' || body.target === 'staging' ? body.target : null
    if (
      body.createdAt !== undefined &&
      (typeof body.createdAt !== 'number' || !Number.isInteger(body.createdAt))
    )
      return problem(400, 'createdAt must be epoch ms')
    const d = sandbox.createDeployment({
      project,
      creatorId: creator.id,
      target,
      meta,
      gitSource: meta.githubCommitRef ? { type: 'github', ref: meta.githubCommitRef } : null,
      source: 'git',
      state: state as DeploymentState | undefined,
      createdAt: body.createdAt as number | undefined,
    })
    return jsonResponse(201, deploymentJson(store, d))
  }

  if (seg[0] === 'deployments' && seg[2] === 'finish' && seg.length === 3 && m === 'POST') {
    const d = store.deployments.get(seg[1] as string)
    if (!d) return problem(404, 'unknown deployment')
    const outcome = String(body.state ?? '').toUpperCase()
    if (outcome !== 'READY' && outcome !== 'ERROR') return problem(400, 'state must be READY or ERROR')
    if (!['QUEUED', 'INITIALIZING', 'BUILDING'].includes(d.readyState))
      return problem(409, `the deployment is already ${d.readyState}`)
    sandbox.finishDeployment(d, outcome)
    return jsonResponse(200, deploymentJson(store, d))
  }

  if (path === '/tokens' && m === 'POST') {
    const user = typeof body.user === 'string' ? store.user(body.user) : undefined
    if (!user) return problem(400, 'user (id, username or email) is required')
    let teamId: string | null = null
    if (body.teamId !== undefined && body.teamId !== null) {
      const team = typeof body.teamId === 'string' ? store.team(body.teamId) : undefined
      if (!team) return problem(400, 'unknown teamId')
      if (!store.isMember(user.id, team)) return problem(400, 'user is not a member of that team')
      teamId = team.id
    }
    const token = { token: accessToken(), userId: user.id, teamId, installationId: null, createdAt: now }
    store.tokens.set(token.token, token)
    return jsonResponse(201, { token: token.token, user_id: user.id, team_id: teamId })
  }

  if (path === '/integrations' && m === 'POST') {
    if (typeof body.slug !== 'string' || !body.slug) return problem(400, 'slug is required')
    const redirectUris = body.redirect_uris ?? []
    if (!Array.isArray(redirectUris) || !redirectUris.every((u) => typeof u === 'string'))
      return problem(400, 'redirect_uris must be an array of strings')
    const client = {
      slug: body.slug,
      name: typeof body.name === 'string' ? body.name : body.slug,
      clientId: typeof body.client_id === 'string' ? body.client_id : `oac_${randomBase64Url(12)}`,
      clientSecret: typeof body.client_secret === 'string' ? body.client_secret : randomBase64Url(18),
      redirectUris: redirectUris as string[],
      allowLoopback: body.allow_loopback === true,
    }
    store.clients.set(client.clientId, client)
    return jsonResponse(201, {
      slug: client.slug,
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      allow_loopback: client.allowLoopback,
    })
  }

  if (path === '/clock') {
    if (m === 'POST') return sandbox.control.moveClock(body)
    if (m !== 'GET') return problem(405, 'GET or POST')
    return sandbox.control.getClock()
  }

  if (seg[0] === 'faults') {
    if (seg.length === 1 && m === 'GET') return sandbox.control.listFaults()
    if (seg.length === 1 && m === 'POST') return sandbox.control.addFault(parsed.value)
    if (seg.length === 1 && m === 'DELETE') return sandbox.control.clearFaults()
    if (seg.length === 2 && m === 'DELETE') return sandbox.control.removeFault(seg[1] as string)
  }

  if (path === '/requests') {
    if (m === 'GET') return sandbox.control.listRequests(req.query)
    if (m === 'DELETE') return sandbox.control.clearRequests()
  }

  if (seg[0] === 'deliveries') {
    if (seg.length === 1 && m === 'GET') {
      let settled = true
      if (['1', 'true', 'settled'].includes(req.query.get('wait') ?? '')) {
        const timeout = Number(req.query.get('timeout_ms') ?? 10_000)
        settled = await sandbox.dispatcher.settled(
          Number.isFinite(timeout) ? Math.min(timeout, 120_000) : 10_000,
        )
      } else settled = !sandbox.dispatcher.list().some((d) => d.state === 'pending')
      const webhookId = req.query.get('webhookId')
      const type = req.query.get('type')
      const deliveries = sandbox.dispatcher
        .list()
        .filter((d) => (!webhookId || d.webhookId === webhookId) && (!type || d.type === type))
        .map((d) => ({ ...d, payload: JSON.parse(d.body) as unknown }))
      return jsonResponse(200, { settled, deliveries })
    }
    if (seg.length === 1 && m === 'DELETE') {
      sandbox.dispatcher.clear()
      return emptyResponse(204)
    }
    if (seg[1] === 'settings' && seg.length === 2) {
      if (m === 'PUT' || m === 'POST') {
        const err = sandbox.dispatcher.configure(parsed.value)
        if (err) return problem(400, err)
      }
      return jsonResponse(200, sandbox.dispatcher.settings)
    }
  }

  if (path === '/rate-limits') {
    if (m === 'PUT' || m === 'POST') {
      const err = sandbox.rateLimiter.configure(parsed.value)
      if (err) return problem(400, err)
    } else if (m === 'DELETE') sandbox.rateLimiter.reset()
    return jsonResponse(200, sandbox.rateLimiter.config)
  }

  return problem(404, `unknown control route ${m} ${path}`)
}
