import { sandboxAccountsBox, type SandboxAccounts } from '../../kit/sandbox-accounts.ts'
import { escapeHtml } from '../http.ts'

/**
 * HTML for the authorize flow. Kept deliberately plain so a test (or any HTTP client) can
 * drive it: `<form method="post" action="...">`, hidden inputs for every OAuth parameter,
 * sign-in fields `email` and `password`, consent buttons `name="decision" value="allow|deny"`,
 * and after them a second consent form with `sign_out=1` ("Use another account").
 */

export type HiddenFields = Record<string, string>

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} · Zendesk sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#2f3941}
.error{color:#cc3340}button{margin-right:.5rem;padding:.4rem 1rem}label{display:block;margin:.6rem 0}
.sandbox-accounts{background:#f8f9f9;border:1px solid #d8dcde;border-radius:4px;padding:0 1rem;margin:1rem 0}
.sandbox-accounts h2{font-size:1rem}.switch-account{margin-top:1.5rem}</style></head>
<body>
${body}
</body>
</html>
`
}

function hiddenInputs(fields: HiddenFields): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n')
}

export function signInPage(options: {
  subdomain: string
  action: string
  fields: HiddenFields
  clientName: string
  accounts: SandboxAccounts
  error?: string
  email?: string
}): string {
  const error = options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ''
  return layout(
    'Sign in',
    `<h1>Sign in to ${escapeHtml(options.subdomain)}</h1>
<p><strong id="app-name">${escapeHtml(options.clientName)}</strong> wants to connect to your Zendesk account. Sign in to continue.</p>
${sandboxAccountsBox(options.accounts)}
${error}
<form method="post" action="${escapeHtml(options.action)}">
${hiddenInputs(options.fields)}
<label>Email <input type="email" name="email" value="${escapeHtml(options.email ?? '')}" autocomplete="username"></label>
<label>Password <input type="password" name="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button>
</form>`,
  )
}

export function consentPage(options: {
  subdomain: string
  action: string
  fields: HiddenFields
  clientName: string
  userName: string
  scopes: string[]
}): string {
  const scopes = options.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')
  return layout(
    'Allow access',
    `<h1>Allow ${escapeHtml(options.clientName)} to access ${escapeHtml(options.subdomain)}?</h1>
<p>Signed in as ${escapeHtml(options.userName)}. <strong>${escapeHtml(options.clientName)}</strong> is requesting these scopes:</p>
<ul>${scopes}</ul>
<form method="post" action="${escapeHtml(options.action)}">
${hiddenInputs(options.fields)}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
<form method="post" action="${escapeHtml(options.action)}">
${hiddenInputs({ ...options.fields, sign_out: '1' })}
<p class="switch-account">Not ${escapeHtml(options.userName)}? <button type="submit">Use another account</button></p>
</form>`,
  )
}

export function oauthErrorPage(title: string, message: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>`,
  )
}
