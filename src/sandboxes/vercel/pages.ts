import { randomBase64Url } from '../kit/ids.ts'
import {
  cookieValue,
  escapeHtml,
  htmlResponse,
  isRecord,
  parseBody,
  redirectResponse,
  type IncomingRequest,
  type SandboxResponse,
} from './http.ts'
import { accessToken as randomCode, configurationId } from './ids.ts'
import { WEBHOOK_EVENTS, type IntegrationClient, type Project, type User } from './model.ts'
import type { VercelSandbox } from './sandbox.ts'
import { SEED } from './seed.ts'
import { sandboxAccountsBox, type SandboxAccounts } from '../kit/sandbox-accounts.ts'
import { Invalid } from './validate.ts'
import { createWebhook } from './webhooks.ts'

/**
 * The browser pages: the integration install flow (`/integrations/{slug}/new`, real host
 * vercel.com) and a project's webhook settings page. Both sign the user in with a session
 * cookie; each form also carries the session in a hidden input so cookie-less clients work.
 * The install consent page has a second form, `step=signout` ("Use another account"), that ends
 * the session and shows the sign-in form for the same request.
 */

export const SESSION_COOKIE = 'vercel_sandbox_session'

/** Authorization codes live 30 minutes and work once (V-INTEG: "valid for 30 minutes"). */
export const CODE_TTL_MS = 30 * 60 * 1000

type Fields = Record<string, string>

export function formFields(req: IncomingRequest): Fields {
  const parsed = parseBody(req)
  const out: Fields = {}
  if (parsed.ok && isRecord(parsed.value)) {
    for (const [k, v] of Object.entries(parsed.value)) out[k] = Array.isArray(v) ? String(v[0]) : String(v)
  }
  return out
}

function formList(req: IncomingRequest, name: string): string[] {
  const parsed = parseBody(req)
  if (!parsed.ok || !isRecord(parsed.value)) return []
  const v = parsed.value[name]
  return v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]
}

/**
 * The same plain look as the Zendesk and Trello sandboxes' pop-ups (their oauth/grant pages.ts), made
 * to fit a 390 px phone: fields take the width there is and long URLs and secrets wrap.
 */
const STYLE = `<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#171717;overflow-wrap:anywhere}*{box-sizing:border-box}
input[type=url],input[type=email],input[type=password],input[type=text],select{display:block;width:100%;max-width:100%}
table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;text-align:left;vertical-align:top;border-bottom:1px solid #eaeaea}
.error{color:#e5484d}button{margin-right:.5rem;padding:.4rem 1rem}label{display:block;margin:.6rem 0}
code{background:#f2f2f2;padding:.2rem .4rem;word-break:break-all}fieldset{border:1px solid #eaeaea;margin:.6rem 0}
.sandbox-accounts{background:#fafafa;border:1px solid #eaeaea;border-radius:4px;padding:0 1rem;margin:1rem 0}
.sandbox-accounts h2{font-size:1rem}.switch-account{margin-top:1.5rem}</style>`

export function page(
  title: string,
  body: string,
  status = 200,
  headers: Record<string, string> = {},
): SandboxResponse {
  return htmlResponse(
    status,
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} – Vercel (sandbox)</title>\n${STYLE}</head>\n<body>\n<h1>${escapeHtml(title)}</h1>\n${body}\n</body></html>\n`,
    headers,
  )
}

export function hidden(fields: Fields): string {
  return Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('\n')
}

/** A refusal in words; `back`, on the pages a person reaches from the sandbox's home page, is the way back. */
export function errorPage(
  message: string,
  status = 400,
  back?: { href: string; label: string },
): SandboxResponse {
  const link = back
    ? `\n<p><a href="${escapeHtml(back.href)}" id="back">${escapeHtml(back.label)}</a></p>`
    : ''
  return page('Error', `<p class="error" id="error" role="alert">${escapeHtml(message)}</p>${link}`, status)
}

export function sessionUser(sandbox: VercelSandbox, req: IncomingRequest, fields: Fields): User | undefined {
  const id = cookieValue(req, SESSION_COOKIE) ?? fields.session
  const userId = id ? sandbox.store.sessions.get(id) : undefined
  return userId ? sandbox.store.users.get(userId) : undefined
}

export function signIn(
  sandbox: VercelSandbox,
  fields: Fields,
): { user: User; session: string; cookie: string } | undefined {
  const user = fields.email ? sandbox.store.user(fields.email.trim()) : undefined
  if (!user || user.password !== fields.password) return undefined
  const session = randomBase64Url(18)
  sandbox.store.sessions.set(session, user.id)
  return { user, session, cookie: `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Lax` }
}

/**
 * The seeded users (seed.ts) still in the store with the seed password, listed on the sign-in form
 * so a newcomer knows what to type; none for a sandbox started without the seed.
 */
function sandboxAccounts(sandbox: VercelSandbox): SandboxAccounts {
  const people = [SEED.user, SEED.member]
    .filter((u) => sandbox.store.users.get(u.id)?.password === SEED.password)
    .map((u) => ({ email: u.email, name: u.name, note: u.username }))
  return { password: SEED.password, people }
}

/** `appName`: the integration asking for access, named on the install flow's sign-in form. */
export function loginPage(
  sandbox: VercelSandbox,
  action: string,
  carry: Fields,
  options: { error?: string; appName?: string } = {},
): SandboxResponse {
  const { error, appName } = options
  const intro = appName
    ? `<p><strong id="app-name">${escapeHtml(appName)}</strong> wants to be added to your Vercel account. Log in to continue.</p>\n`
    : ''
  return page(
    'Log in to Vercel',
    `${intro}${sandboxAccountsBox(sandboxAccounts(sandbox))}${error ? `<p class="error" id="error">${escapeHtml(error)}</p>\n` : ''}<form method="post" action="${escapeHtml(action)}">
${hidden({ ...carry, step: 'login' })}
<label>Email <input type="email" name="email" autocomplete="username"></label>
<label>Password <input type="password" name="password" autocomplete="current-password"></label>
<button type="submit">Continue</button>
</form>`,
    error ? 401 : 200,
  )
}

// ---- integration install flow ----------------------------------------------------------------

function clientBySlug(sandbox: VercelSandbox, slug: string): IntegrationClient | undefined {
  return [...sandbox.store.clients.values()].find((c) => c.slug === slug)
}

/** Registered URIs match exactly; the seeded client also takes any http loopback URI (docs). */
export function redirectAllowed(client: IntegrationClient, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true
  if (!client.allowLoopback) return false
  try {
    const url = new URL(uri)
    return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1')
  } catch {
    return false
  }
}

function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri)
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') url.searchParams.set(k, v)
  return url.toString()
}

function consentPage(
  sandbox: VercelSandbox,
  action: string,
  carry: Fields,
  client: IntegrationClient,
  user: User,
  session: string,
  error?: string,
): SandboxResponse {
  const teams = sandbox.store.teamsOf(user.id)
  const options = [
    `<option value="">${escapeHtml(user.name)} (${escapeHtml(user.username)}, personal account)</option>`,
  ]
    .concat(
      teams.map(
        (t) => `<option value="${escapeHtml(t.id)}">${escapeHtml(t.name)} (${escapeHtml(t.slug)})</option>`,
      ),
    )
    .join('\n')
  return page(
    `Add ${client.name}`,
    `${error ? `<p class="error" id="error">${escapeHtml(error)}</p>\n` : ''}<p>Signed in as ${escapeHtml(user.email)}.</p>
<form method="post" action="${escapeHtml(action)}">
${hidden({ ...carry, step: 'consent', session })}
<label>Vercel scope <select name="teamId">
${options}
</select></label>
<p>${escapeHtml(client.name)} will be able to:</p>
<ul><li>Read and write projects</li><li>Read and write deployments</li><li>Read and write environment variables and domains</li></ul>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form>
<form method="post" action="${escapeHtml(action)}">
${hidden({ ...carry, step: 'signout', session })}
<p class="switch-account">Not ${escapeHtml(user.email)}? <button type="submit">Use another account</button></p>
</form>`,
    error ? 400 : 200,
  )
}

/** `GET|POST /integrations/{slug}/new`. */
export function handleInstall(sandbox: VercelSandbox, req: IncomingRequest, slug: string): SandboxResponse {
  const client = clientBySlug(sandbox, slug)
  if (!client) return errorPage(`Integration "${slug}" not found.`, 404)
  const fields = req.method === 'POST' ? formFields(req) : Object.fromEntries(req.query)
  const clientId = fields.client_id
  if (clientId && clientId !== client.clientId)
    return errorPage('The client_id does not belong to this integration.')
  const redirectUri =
    fields.redirect_uri || (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined)
  if (!redirectUri) return errorPage('Missing redirect_uri.')
  if (!redirectAllowed(client, redirectUri))
    return errorPage('The redirect_uri is not registered for this integration.')
  // Unknown parameters (e.g. PKCE's code_challenge) are ignored, not carried.
  const carry: Fields = { redirect_uri: redirectUri }
  for (const k of ['state', 'next', 'client_id']) if (fields[k]) carry[k] = fields[k] as string
  const action = `${req.base}/integrations/${encodeURIComponent(slug)}/new`
  const login = (error?: string) => loginPage(sandbox, action, carry, { error, appName: client.name })

  if (req.method === 'POST' && fields.step === 'signout') {
    // Both the form's session and the cookie's (a browser may hold an older one) end here.
    for (const id of [fields.session, cookieValue(req, SESSION_COOKIE)])
      if (id) sandbox.store.sessions.delete(id)
    const response = login()
    response.headers['set-cookie'] = `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`
    return response
  }
  if (req.method === 'POST' && fields.step === 'login') {
    const signed = signIn(sandbox, fields)
    if (!signed) return login('Invalid email or password.')
    const response = consentPage(sandbox, action, carry, client, signed.user, signed.session)
    response.headers['set-cookie'] = signed.cookie
    return response
  }
  const user = sessionUser(sandbox, req, fields)
  if (!user) return login()
  const session = cookieValue(req, SESSION_COOKIE) ?? fields.session ?? ''
  if (req.method !== 'POST' || fields.step !== 'consent')
    return consentPage(sandbox, action, carry, client, user, session)

  if (fields.decision === 'deny')
    return redirectResponse(withParams(redirectUri, { error: 'access_denied', state: carry.state }))
  if (fields.decision !== 'allow')
    return consentPage(sandbox, action, carry, client, user, session, 'Choose Allow or Cancel.')
  const teamId = fields.teamId ?? ''
  if (teamId) {
    const team = sandbox.store.teams.get(teamId)
    if (!team || !sandbox.store.isMember(user.id, team))
      return consentPage(sandbox, action, carry, client, user, session, 'You are not a member of that team.')
  }
  const now = sandbox.now()
  const installation = {
    id: configurationId(),
    clientId: client.clientId,
    userId: user.id,
    teamId: teamId || null,
    createdAt: now,
  }
  sandbox.store.installations.set(installation.id, installation)
  const code = randomCode()
  sandbox.store.codes.set(code, {
    code,
    clientId: client.clientId,
    redirectUri,
    userId: user.id,
    teamId: installation.teamId,
    installationId: installation.id,
    expiresAt: now + CODE_TTL_MS,
    used: false,
  })
  return redirectResponse(
    withParams(redirectUri, {
      code,
      configurationId: installation.id,
      teamId: installation.teamId ?? undefined,
      next: carry.next,
      state: carry.state,
    }),
  )
}

// ---- project webhook settings page ------------------------------------------------------------

function findProjectFor(
  sandbox: VercelSandbox,
  user: User,
  idOrName: string,
  teamRef: string | null,
): Project | undefined {
  const store = sandbox.store
  const owners = teamRef
    ? [store.team(teamRef)].filter((t) => t && store.isMember(user.id, t)).map((t) => t!.id)
    : [user.id, ...store.teamsOf(user.id).map((t) => t.id)]
  for (const owner of owners) {
    const p = store.project(owner, idOrName)
    if (p) return p
  }
  return undefined
}

function settingsPage(
  sandbox: VercelSandbox,
  action: string,
  project: Project,
  session: string,
  extra: { secret?: string; webhookId?: string; error?: string } = {},
): SandboxResponse {
  const hooks = [...sandbox.store.webhooks.values()].filter((w) => w.projectIds.includes(project.id))
  const boxes = WEBHOOK_EVENTS.filter((e) => e.startsWith('deployment.'))
    .map((e) => `<label><input type="checkbox" name="events" value="${e}"> ${e}</label>`)
    .join('\n')
  const created = extra.secret
    ? `<section id="created" data-webhook-id="${escapeHtml(extra.webhookId ?? '')}"><p>Webhook created. Copy the secret now: it will not be shown again.</p>
<code id="webhook-secret">${escapeHtml(extra.secret)}</code></section>\n`
    : ''
  const list = hooks
    .map(
      (w) =>
        `<li data-webhook-id="${escapeHtml(w.id)}">${escapeHtml(w.url)} — ${escapeHtml(w.events.join(', '))}</li>`,
    )
    .join('\n')
  return page(
    `Webhooks – ${project.name}`,
    `${extra.error ? `<p class="error" id="error">${escapeHtml(extra.error)}</p>\n` : ''}${created}<form method="post" action="${escapeHtml(action)}">
${hidden({ step: 'create', session })}
<label>Endpoint URL <input type="url" name="url"></label>
<fieldset><legend>Events</legend>
${boxes}
</fieldset>
<button type="submit">Create Webhook</button>
</form>
<ul id="webhooks">
${list}
</ul>`,
    extra.error ? 400 : 200,
  )
}

/** `GET|POST /projects/{idOrName}/settings/webhooks[?teamId=]`: creates webhooks owned by the project's owner. */
export function handleWebhookSettings(
  sandbox: VercelSandbox,
  req: IncomingRequest,
  idOrName: string,
): SandboxResponse {
  const fields = req.method === 'POST' ? formFields(req) : {}
  const teamRef = req.query.get('teamId') || req.query.get('slug')
  const action = `${req.base}${req.path}${teamRef ? `?teamId=${encodeURIComponent(teamRef)}` : ''}`
  let user = sessionUser(sandbox, req, fields)
  let session = cookieValue(req, SESSION_COOKIE) ?? fields.session ?? ''
  let cookie: string | undefined
  if (req.method === 'POST' && fields.step === 'login') {
    const signed = signIn(sandbox, fields)
    if (!signed) return loginPage(sandbox, action, {}, { error: 'Invalid email or password.' })
    ;({ user, session, cookie } = signed)
  }
  if (!user) return loginPage(sandbox, action, {})
  const project = findProjectFor(sandbox, user, idOrName, teamRef)
  if (!project)
    return errorPage(`Project "${idOrName}" not found.`, 404, {
      href: req.base,
      label: 'Back to the Vercel sandbox',
    })
  let response: SandboxResponse
  if (req.method === 'POST' && fields.step === 'create') {
    try {
      const hook = createWebhook(
        sandbox.store,
        project.ownerId,
        { url: fields.url ?? '', events: formList(req, 'events'), projectIds: [project.id] },
        sandbox.now(),
      )
      response = settingsPage(sandbox, action, project, session, { secret: hook.secret, webhookId: hook.id })
    } catch (error) {
      if (!(error instanceof Invalid)) throw error
      const message = JSON.parse(error.response.payload ?? '{}')?.error?.message ?? 'Invalid input'
      response = settingsPage(sandbox, action, project, session, { error: message })
    }
  } else response = settingsPage(sandbox, action, project, session)
  if (cookie) response.headers['set-cookie'] = cookie
  return response
}
