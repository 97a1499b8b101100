import { checkPassword, createApp } from './accounts.ts'
import {
  escapeHtml,
  htmlResponse,
  isRecord,
  parseBody,
  textResponse,
  type IncomingRequest,
  type SandboxResponse,
} from './http.ts'
import type { App, Member } from './model.ts'
import { validOriginPattern } from './origins.ts'
import { hiddenInputs, layout, signInPage } from './grant/pages.ts'
import { sandboxAccounts } from './grant/sandbox-accounts.ts'
import { sessionMember, startSession } from './grant/session.ts'
import type { TrelloSandbox } from './sandbox.ts'

/**
 * The developer admin page (real: trello.com/app-key and the Power-Up admin): sign in, see
 * your apps' API keys and secrets, register a new app. `GET {url}/app-key`; the forms POST
 * back with `step=signin` (email, password) or `step=create` (name, allowed_origins: one
 * origin pattern per line or comma-separated; empty means `http://localhost:*` and
 * `http://127.0.0.1:*`). A new app's key and secret appear in `<code id="key">` and
 * `<code id="secret">`.
 */

function appRows(apps: App[]): string {
  if (apps.length === 0) return '<p>You have no apps yet.</p>'
  const rows = apps
    .map(
      (app) =>
        `<tr data-key="${app.key}"><td class="name">${escapeHtml(app.name)}</td><td><code class="key">${app.key}</code></td><td><code class="secret">${app.secret}</code></td><td class="origins">${escapeHtml(app.allowedOrigins.join(', '))}</td></tr>`,
    )
    .join('\n')
  return `<table>\n<tr><th>App</th><th>API key</th><th>Secret</th><th>Allowed origins</th></tr>\n${rows}\n</table>`
}

function dashboard(
  sb: TrelloSandbox,
  action: string,
  root: string,
  member: Member,
  sessionId: string,
  created?: App,
  error?: string,
): string {
  const fresh = created
    ? `<section id="created">
<h2>${escapeHtml(created.name)} is registered</h2>
<p>API key: <code id="key">${created.key}</code></p>
<p>Secret: <code id="secret">${created.secret}</code></p>
<p><a href="${escapeHtml(`${root}/1/authorize?expiration=never&scope=read,write,account&response_type=token&key=${created.key}&name=${encodeURIComponent(created.name)}`)}">Generate a token for yourself</a></p>
</section>`
    : ''
  return layout(
    'API keys',
    `<h1>Developer API keys</h1>
<p>Signed in as ${escapeHtml(member.fullName)} (@${escapeHtml(member.username)}).</p>
${fresh}
<h2>Your apps</h2>
${appRows(sb.store.appOwnedBy(member.id))}
<h2>New app</h2>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}<form method="post" action="${escapeHtml(action)}">
${hiddenInputs({ step: 'create', session: sessionId })}
<label>App name <input type="text" name="name"></label>
<label>Allowed origins <textarea name="allowed_origins" placeholder="http://localhost:*"></textarea></label>
<button type="submit">Create app</button>
</form>`,
  )
}

function signIn(sb: TrelloSandbox, action: string, error?: string, email?: string): SandboxResponse {
  const intro = 'Sign in with your sandbox Trello account.'
  return htmlResponse(
    200,
    signInPage({
      heading: 'Log in to see your API keys',
      intro,
      action,
      fields: {},
      accounts: sandboxAccounts(sb),
      error,
      email,
    }),
  )
}

export function handleAppKey(
  sb: TrelloSandbox,
  req: IncomingRequest,
  action: string,
  root: string,
): SandboxResponse {
  if (req.method === 'GET' || req.method === 'HEAD') {
    const session = sessionMember(sb, req)
    return session
      ? htmlResponse(200, dashboard(sb, action, root, session.member, session.id))
      : signIn(sb, action)
  }
  if (req.method !== 'POST') return textResponse(404, 'The requested resource was not found.')
  const parsed = parseBody(req)
  const form = parsed.ok && isRecord(parsed.value) ? parsed.value : {}
  const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '')
  if (field('step') === 'signin') {
    const member = checkPassword(sb, field('email'), field('password'))
    if (!member) return signIn(sb, action, 'Incorrect email address and/or password.', field('email'))
    const session = startSession(sb, member)
    return htmlResponse(200, dashboard(sb, action, root, member, session.id), {
      'set-cookie': session.cookie,
    })
  }
  if (field('step') === 'create') {
    const session = sessionMember(sb, req, field('session'))
    if (!session) return signIn(sb, action, 'Please log in again.')
    const name = field('name').trim()
    if (!name)
      return htmlResponse(
        200,
        dashboard(sb, action, root, session.member, session.id, undefined, 'App name is required.'),
      )
    const origins = field('allowed_origins')
      .split(/[\s,]+/)
      .map((o) => o.trim())
      .filter(Boolean)
    if (!origins.every(validOriginPattern)) {
      return htmlResponse(
        200,
        dashboard(
          sb,
          action,
          root,
          session.member,
          session.id,
          undefined,
          'Allowed origins must be origins like https://app.example or http://localhost:*.',
        ),
      )
    }
    const app = createApp(sb, {
      name,
      owner: session.member,
      allowedOrigins: origins.length > 0 ? origins : undefined,
    })
    return htmlResponse(200, dashboard(sb, action, root, session.member, session.id, app))
  }
  return textResponse(400, 'invalid value for step')
}
