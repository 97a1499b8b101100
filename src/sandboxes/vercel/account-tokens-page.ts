import { cookieValue, escapeHtml, type IncomingRequest, type SandboxResponse } from './http.ts'
import { accessToken } from './ids.ts'
import type { Token, User } from './model.ts'
import {
  errorPage,
  formFields,
  hidden,
  loginPage,
  page,
  SESSION_COOKIE,
  sessionUser,
  signIn,
} from './pages.ts'
import type { VercelSandbox } from './sandbox.ts'

/**
 * `GET|POST /account/tokens` (vercel.com/account/tokens): the signed-in person's access tokens, and
 * a form to create one for their personal account or one of their teams. As on Vercel, a new
 * token's value is shown once, when it is made; the list shows each token's name, scope, where it
 * came from and when it was made, never its value. Tokens made here work on the API at once (the
 * same store the router reads). The create form must carry the page's session in a hidden input
 * (a cookie alone is not enough), so another site cannot make a token for the person.
 */

const NAME_MAX = 100

function scopeName(sandbox: VercelSandbox, token: Token): string {
  return token.teamId ? (sandbox.store.teams.get(token.teamId)?.name ?? token.teamId) : 'Personal account'
}

function tokensPage(
  sandbox: VercelSandbox,
  action: string,
  user: User,
  session: string,
  extra: { created?: Token; error?: string } = {},
): SandboxResponse {
  const tokens = [...sandbox.store.tokens.values()]
    .filter((t) => t.userId === user.id)
    .sort((a, b) => b.createdAt - a.createdAt)
  const rows = tokens
    .map(
      (t) =>
        `<tr><td>${escapeHtml(t.name ?? (t.installationId ? 'Integration' : 'Token'))}</td><td>${escapeHtml(scopeName(sandbox, t))}</td><td>${t.installationId ? `Integration <code>${escapeHtml(t.installationId)}</code>` : 'Created here or by the control API'}</td><td>${new Date(t.createdAt).toISOString()}</td></tr>`,
    )
    .join('\n')
  const scopes = [
    `<option value="">${escapeHtml(user.name)} (personal account)</option>`,
    ...sandbox.store
      .teamsOf(user.id)
      .map((t) => `<option value="${escapeHtml(t.id)}">${escapeHtml(t.name)}</option>`),
  ].join('\n')
  const created = extra.created
    ? `<section id="created"><p>Token “${escapeHtml(extra.created.name ?? '')}” created. Copy it now: it will not be shown again.</p>
<code id="token">${escapeHtml(extra.created.token)}</code></section>\n`
    : ''
  return page(
    'Tokens',
    `<p>Signed in as ${escapeHtml(user.email)}. <a href="${escapeHtml(action.replace(/\/account\/tokens$/, ''))}">Vercel sandbox home</a></p>
${extra.error ? `<p class="error" id="error">${escapeHtml(extra.error)}</p>\n` : ''}${created}<form method="post" action="${escapeHtml(action)}">
${hidden({ step: 'create', session })}
<label>Token name <input type="text" name="name" maxlength="${NAME_MAX}" required></label>
<label>Scope <select name="teamId">
${scopes}
</select></label>
<button type="submit">Create</button>
</form>
<h2>Your tokens</h2>
<table id="tokens"><thead><tr><th>Name</th><th>Scope</th><th>Source</th><th>Created</th></tr></thead>
<tbody>${rows}</tbody></table>`,
    extra.error ? 400 : 200,
  )
}

export function handleAccountTokens(sandbox: VercelSandbox, req: IncomingRequest): SandboxResponse {
  const action = `${req.base}/account/tokens`
  const fields = req.method === 'POST' ? formFields(req) : {}
  if (req.method === 'POST' && fields.step === 'login') {
    const signed = signIn(sandbox, fields)
    if (!signed) return loginPage(sandbox, action, {}, { error: 'Invalid email or password.' })
    const response = tokensPage(sandbox, action, signed.user, signed.session)
    response.headers['set-cookie'] = signed.cookie
    return response
  }
  const user = sessionUser(sandbox, req, fields)
  if (!user) return loginPage(sandbox, action, {})
  const session = cookieValue(req, SESSION_COOKIE) ?? fields.session ?? ''
  if (req.method !== 'POST') return tokensPage(sandbox, action, user, session)
  const back = { href: action, label: 'Back to Account tokens' }
  if (fields.step !== 'create')
    return errorPage('The form asked for something this page does not do.', 400, back)
  if (!fields.session || sandbox.store.sessions.get(fields.session) !== user.id)
    return errorPage('The form is out of date: go back, reload the page and try again.', 403, back)
  const name = (fields.name ?? '').trim()
  if (!name) return tokensPage(sandbox, action, user, session, { error: 'Token name is required.' })
  if (name.length > NAME_MAX)
    return tokensPage(sandbox, action, user, session, {
      error: `Token name must be at most ${NAME_MAX} characters.`,
    })
  const teamId = fields.teamId ?? ''
  const team = teamId ? sandbox.store.teams.get(teamId) : undefined
  if (teamId && (!team || !sandbox.store.isMember(user.id, team)))
    return tokensPage(sandbox, action, user, session, { error: 'You are not a member of that team.' })
  const token: Token = {
    token: accessToken(),
    userId: user.id,
    teamId: team?.id ?? null,
    installationId: null,
    createdAt: sandbox.now(),
    name,
  }
  sandbox.store.tokens.set(token.token, token)
  return tokensPage(sandbox, action, user, session, { created: token })
}
