import { escapeHtml } from '../http.ts'
import { sandboxAccountsBox, type SandboxAccounts } from '../../kit/sandbox-accounts.ts'
import type { Expiration, Scope } from '../model.ts'

/**
 * HTML for the sign-in and allow/deny pages. Plain on purpose so any HTTP client can drive
 * them: `<form method="post" action="...">`, hidden `<input type="hidden" name=.. value=..>`
 * for every carried argument, sign-in fields `email` and `password`, account fields
 * `fullName`, `username`, `email`, `password`, decision buttons `name="decision"`, and after
 * them a second consent form with `step=signout` ("Use another account").
 */

export type HiddenFields = Record<string, string>

export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)} · Trello sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#172b4d}
.error{color:#c9372c}button{margin-right:.5rem;padding:.4rem 1rem}label{display:block;margin:.6rem 0}
code,pre{background:#f4f5f7;padding:.2rem .4rem;word-break:break-all}table{border-collapse:collapse}td,th{padding:.3rem .6rem;text-align:left}
.sandbox-accounts{background:#f7f8f9;border:1px solid #dcdfe4;border-radius:4px;padding:0 1rem;margin:1rem 0}
.sandbox-accounts h2{font-size:1rem}.switch-account{margin-top:1.5rem}</style></head>
<body>
${body}
</body>
</html>
`
}

export function hiddenInputs(fields: HiddenFields): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n')
}

const errorLine = (error: string | undefined) =>
  error ? `<p class="error" role="alert">${escapeHtml(error)}</p>\n` : ''

export interface SignInOptions {
  heading: string
  intro: string
  action: string
  fields: HiddenFields
  accounts: SandboxAccounts
  error?: string
  email?: string
  /** Offer the "create account" form (the authorize pages do; the app-key page does not). */
  signup?: { error?: string }
}

export function signInPage(options: SignInOptions): string {
  const signup = options.signup
    ? `
<h2>Create a Trello account</h2>
${errorLine(options.signup.error)}<form method="post" action="${escapeHtml(options.action)}">
${hiddenInputs({ ...options.fields, step: 'signup' })}
<label>Full name <input type="text" name="fullName" autocomplete="name"></label>
<label>Username <input type="text" name="username" autocomplete="username"></label>
<label>Email <input type="email" name="email" autocomplete="email"></label>
<label>Password <input type="password" name="password" autocomplete="new-password"></label>
<button type="submit">Create account</button>
</form>`
    : ''
  return layout(
    'Log in',
    `<h1>${escapeHtml(options.heading)}</h1>
<p>${escapeHtml(options.intro)}</p>
${sandboxAccountsBox(options.accounts)}${errorLine(options.error)}<form method="post" action="${escapeHtml(options.action)}">
${hiddenInputs({ ...options.fields, step: 'signin' })}
<label>Email or username <input type="text" name="email" value="${escapeHtml(options.email ?? '')}" autocomplete="username"></label>
<label>Password <input type="password" name="password" autocomplete="current-password"></label>
<button type="submit">Log in</button>
</form>${signup}`,
  )
}

const SCOPE_TEXT: Record<Scope, string> = {
  read: 'Read all of your boards, cards, lists and teams',
  write: 'Create and update cards, lists, boards and comments',
  account: 'Read your email address and update your account, and mark your notifications read',
}

const EXPIRATION_TEXT: Record<Expiration, string> = {
  '1hour': 'for 1 hour',
  '1day': 'for 1 day',
  '30days': 'for 30 days',
  never: 'until you revoke it',
}

export function consentPage(options: {
  appName: string
  memberName: string
  scopes: Scope[]
  expiration: Expiration
  action: string
  fields: HiddenFields
}): string {
  const scopes = options.scopes
    .map((s) => `<li data-scope="${s}"><code>${s}</code>: ${escapeHtml(SCOPE_TEXT[s])}</li>`)
    .join('\n')
  return layout(
    'Allow access',
    `<h1>Let ${escapeHtml(options.appName)} use your account?</h1>
<p>Signed in as ${escapeHtml(options.memberName)}. <strong id="app-name">${escapeHtml(options.appName)}</strong> will be able to:</p>
<ul>
${scopes}
</ul>
<p>Access lasts ${escapeHtml(EXPIRATION_TEXT[options.expiration])}.</p>
<form method="post" action="${escapeHtml(options.action)}">
${hiddenInputs({ ...options.fields, step: 'decide' })}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
<form method="post" action="${escapeHtml(options.action)}">
${hiddenInputs({ ...options.fields, step: 'signout' })}
<p class="switch-account">Not ${escapeHtml(options.memberName)}? <button type="submit">Use another account</button></p>
</form>`,
  )
}

export function tokenPage(appName: string, token: string): string {
  return layout(
    'Token',
    `<h1>You have granted access to ${escapeHtml(appName)}</h1>
<p>Your token is:</p>
<pre id="token">${escapeHtml(token)}</pre>`,
  )
}

/** Hands the token to the window that opened the popup, for that origin only. */
export function postMessagePage(appName: string, token: string, origin: string): string {
  return layout(
    'Token',
    `<h1>You have granted access to ${escapeHtml(appName)}</h1>
<p>You can close this window.</p>
<script>
if (window.opener) window.opener.postMessage(${JSON.stringify(token).replace(/</g, '\\u003c')}, ${JSON.stringify(origin).replace(/</g, '\\u003c')});
window.close();
</script>`,
  )
}

export function verifierPage(appName: string, verifier: string): string {
  return layout(
    'Verifier',
    `<h1>You have granted access to ${escapeHtml(appName)}</h1>
<p>Enter this verification code in the application:</p>
<pre id="verifier">${escapeHtml(verifier)}</pre>`,
  )
}

export function deniedPage(appName: string): string {
  return layout(
    'Access denied',
    `<h1 id="denied">Access denied</h1>\n<p>You did not allow ${escapeHtml(appName)} to use your account.</p>`,
  )
}
