import { escapeHtml, htmlResponse, type IncomingRequest, type SandboxResponse } from './http.ts'
import type { Project } from './model.ts'
import { handleAsPerson, type ApiRouter } from './router.ts'
import { OUTCOME_META_KEY, type VercelSandbox } from './sandbox.ts'
import { SEED } from './seed.ts'
import { homeLayout, options, refusalInWords, required, type HomeForms } from '../kit/home-page.ts'

/**
 * `GET {prefix}` (docs/sandbox.md "Home pages"): the users, teams, projects and recent deployments,
 * links to each project's webhook settings page and to the account tokens page, and a form to
 * deploy a project as a person with an outcome of ready or error. The deploy is
 * `POST /v13/deployments` through the API's own handler (router.ts handleAsPerson), so the
 * deployment goes QUEUED → BUILDING → READY or ERROR on the sandbox clock and sends its webhook
 * events as any API deployment does.
 */

const OUTCOMES = ['ready', 'error'] as const
const TARGETS = ['preview', 'production'] as const
const RECENT = 10

const settingsUrl = (root: string, sandbox: VercelSandbox, p: Project) => {
  const team = sandbox.store.teams.get(p.ownerId)
  return `${root}/projects/${encodeURIComponent(p.name)}/settings/webhooks${team ? `?teamId=${encodeURIComponent(team.id)}` : ''}`
}

export function vercelHomePage(
  sandbox: VercelSandbox,
  forms: HomeForms,
  req: IncomingRequest,
): SandboxResponse {
  const root = req.base
  const store = sandbox.store
  const users = [...store.users.values()]
  const projects = [...store.projects.values()]
  const owner = (id: string) => store.ownerSlug(id)
  const deployments = [...store.deployments.values()]
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, RECENT)
  const userRows = users
    .map(
      (u) =>
        `<tr><td>${escapeHtml(u.name)}</td><td><code>${escapeHtml(u.username)}</code></td><td>${escapeHtml(u.email)}</td><td>${escapeHtml(
          store
            .teamsOf(u.id)
            .map((t) => t.name)
            .join(', ') || '—',
        )}</td></tr>`,
    )
    .join('\n')
  const projectRows = projects
    .map(
      (p) =>
        `<tr data-project="${escapeHtml(p.id)}"><td>${escapeHtml(p.name)}</td><td>${escapeHtml(owner(p.ownerId))}</td><td><a href="${escapeHtml(settingsUrl(root, sandbox, p))}">Webhooks</a></td></tr>`,
    )
    .join('\n')
  const deploymentRows = deployments
    .map(
      (d) =>
        `<tr data-deployment="${escapeHtml(d.id)}"><td>${escapeHtml(d.name)}</td><td>${escapeHtml(d.readyState)}</td><td>${escapeHtml(d.target ?? 'preview')}</td><td><code>${escapeHtml(d.id)}</code></td></tr>`,
    )
    .join('\n')
  const defaultUser = users.find((u) => u.id === SEED.member.id) ?? users[0]
  // The first project the default person may deploy (their own, or a team's they are in), so the form works as it comes.
  const defaultProject = projects.find((p) => {
    const team = store.teams.get(p.ownerId)
    return team ? defaultUser && store.isMember(defaultUser.id, team) : p.ownerId === defaultUser?.id
  })?.id
  return htmlResponse(
    200,
    homeLayout(
      'Vercel sandbox',
      `<nav><a href="/">All sandboxes</a><a href="${escapeHtml(`${root}/account/tokens`)}">Account tokens</a></nav>
<h1>Vercel sandbox</h1>
${forms.banner(req.query)}<p>A local stand-in for Vercel. Deploy a project here and it goes through its states on the sandbox clock (building after 2 s, done after 10 s), sending the webhook events a project's webhooks ask for. Add a webhook on a project's <em>Webhooks</em> page. Each seeded user's password is <code>${escapeHtml(SEED.password)}</code>.</p>
<h2>Make a change</h2>
<div class="forms">
<form method="post" action="${escapeHtml(root)}" class="change" id="form-deploy">
<h3>Deploy a project</h3>
${forms.hidden()}
<input type="hidden" name="step" value="deploy">
<label>Acting as <select name="user">
${options(
  users.map((u) => ({ value: u.id, label: `${u.name} (${u.username})` })),
  defaultUser?.id,
)}
</select></label>
<label>Project <select name="project">
${options(
  projects.map((p) => ({ value: p.id, label: `${owner(p.ownerId)} / ${p.name}` })),
  defaultProject,
)}
</select></label>
<label>Target <select name="target">
${options(TARGETS.map((t) => ({ value: t, label: t })))}
</select></label>
<label>Outcome <select name="outcome">
${options(OUTCOMES.map((o) => ({ value: o, label: o === 'ready' ? 'Ready (build succeeds)' : 'Error (build fails)' })))}
</select></label>
<button type="submit">Deploy</button>
</form>
</div>
<h2>Projects</h2>
<div class="table-wrap"><table id="projects"><thead><tr><th>Project</th><th>Owner</th><th>Settings</th></tr></thead>
<tbody>${projectRows}</tbody></table></div>
<h2>Recent deployments</h2>
<div class="table-wrap"><table id="deployments"><thead><tr><th>Project</th><th>State</th><th>Target</th><th>Id</th></tr></thead>
<tbody>${deploymentRows}</tbody></table></div>
<h2>Users</h2>
<div class="table-wrap"><table id="users"><thead><tr><th>Name</th><th>Username</th><th>Email</th><th>Teams</th></tr></thead>
<tbody>${userRows}</tbody></table></div>`,
    ),
  )
}

/** `POST {prefix}`: the deploy form; 303 back naming the deployment, or a page saying why not. */
export function postVercelHome(
  sandbox: VercelSandbox,
  router: ApiRouter,
  forms: HomeForms,
  req: IncomingRequest,
): SandboxResponse {
  const root = req.base
  const read = forms.read(req, { url: root, title: 'Vercel sandbox' })
  if (!read.ok) return read.response
  const { fields, refuse } = read
  if (fields.step !== 'deploy') return refuse(400, 'step must be deploy.')
  const userRef = required(fields, 'user')
  if (!userRef) return refuse(400, 'user is required: choose who deploys.')
  const user = sandbox.store.user(userRef)
  if (!user) return refuse(404, `No user "${userRef}" in this sandbox.`)
  const projectRef = required(fields, 'project')
  if (!projectRef) return refuse(400, 'project is required: choose a project.')
  const project = sandbox.store.projects.get(projectRef)
  if (!project) return refuse(404, `No project "${projectRef}" in this sandbox.`)
  const outcome = fields.outcome ?? ''
  if (!(OUTCOMES as readonly string[]).includes(outcome))
    return refuse(400, 'outcome must be ready or error.')
  const target = fields.target || 'preview'
  if (!(TARGETS as readonly string[]).includes(target))
    return refuse(400, 'target must be preview or production.')
  const team = sandbox.store.teams.get(project.ownerId) ?? null
  if (!team && project.ownerId !== user.id) {
    const owner = sandbox.store.users.get(project.ownerId)?.name ?? 'another person'
    return refuse(
      403,
      `${user.name} cannot deploy ${project.name}: it is ${owner}'s own project. Choose ${owner} as the person acting, or a team's project.`,
    )
  }
  const body = {
    name: project.name,
    project: project.id,
    target,
    ...(outcome === 'error' ? { meta: { [OUTCOME_META_KEY]: 'error' } } : {}),
  }
  const answer = handleAsPerson(
    sandbox,
    router,
    user,
    team,
    {
      ...req,
      method: 'POST',
      path: '/v13/deployments',
      query: new URLSearchParams(),
      rawBody: JSON.stringify(body),
    },
    body,
  )
  if (answer.status !== 200)
    return refuse(
      answer.status >= 500 ? 502 : answer.status,
      team && answer.status === 403
        ? `${user.name} cannot deploy ${project.name}: they are not a member of ${team.name}.`
        : `${user.name} could not deploy ${project.name}. ${refusalInWords('Vercel', answer)}`,
    )
  const id = JSON.parse(answer.payload ?? '{}').id as string
  return forms.done(
    root,
    `${user.name} deployed ${project.name} (${target}) as ${id}: queued now, ${outcome === 'error' ? 'ERROR' : 'READY'} in 10 s.`,
  )
}
