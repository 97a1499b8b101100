import type { FastifyReply } from 'fastify'
import type { PendingFlow } from '../core/connections/connect.ts'

// The page a connect link shows before the platform's consent page (docs/security.md). Plain HTML:
// two form POSTs, no script, and a same-origin stylesheet, so it works under the strictest CSP.

export const CONFIRM_STYLESHEET_PATH = '/oauth/assets/confirm.css'

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Switchyard</title>
<link rel="stylesheet" href="${CONFIRM_STYLESHEET_PATH}">
</head>
<body>
<main class="card">
<p class="brand">Switchyard</p>
${body}
</main>
</body>
</html>
`
}

export function confirmPage(flow: PendingFlow, startToken: string): string {
  const owner = `<strong class="owner">${escapeHtml(flow.ownerEmail)}</strong>`
  const platform = escapeHtml(flow.platformTitle)
  const fields = flow.fields
    .map(({ label, value }) => `<div><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>`)
    .join('')
  const action = (step: string) => `/oauth/start/${encodeURIComponent(startToken)}/${step}`
  return page(
    `Connect ${flow.platformTitle} to ${flow.ownerEmail}?`,
    `
<h1>Connect a ${platform} account to ${owner}?</h1>
<p>This link was made by the Switchyard user ${owner}. The ${platform} account you approve next will
${flow.reconnect ? 'reconnect one of their integrations' : 'be added to their integrations'}, and agents working for them
will be able to act on ${platform} as that account.</p>
${fields ? `<dl class="fields">${fields}</dl>` : ''}
<p class="warning">If you do not know ${owner} or did not expect this link, choose Cancel.</p>
<div class="actions">
<form method="post" action="${action('continue')}"><button type="submit" class="primary">Continue to ${platform}</button></form>
<form method="post" action="${action('cancel')}"><button type="submit">Cancel</button></form>
</div>`,
  )
}

export function cancelledPage(flow: PendingFlow): string {
  return page(
    'Connection cancelled',
    `
<h1>Cancelled</h1>
<p>Nothing was connected to ${escapeHtml(flow.ownerEmail)}'s Switchyard account. You can close this window.</p>`,
  )
}

/**
 * These pages must never be framed (Continue could be clickjacked) or cached. Their address holds
 * the link's token, so no referrer leaves for another site; within this one the browser must send
 * its Origin with Continue and Cancel (under `no-referrer` a form POST sends `Origin: null`), and the
 * answer to Continue drops the referrer before the platform.
 */
export function sendPage(reply: FastifyReply, html: string) {
  return (
    reply
      .status(200)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'same-origin')
      .header('x-frame-options', 'DENY')
      // No form-action: Continue's answer redirects to the platform, which form-action would block.
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'",
      )
      .send(html)
  )
}

export const CONFIRM_STYLESHEET = `
:root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f4f5f7; color: #1d2433; }
.card { max-width: 32rem; margin: 2rem 1rem; padding: 2rem; background: #fff; border-radius: 12px; box-shadow: 0 2px 12px rgb(0 0 0 / 0.08); }
.brand { margin: 0 0 1rem; font-weight: 700; color: #4f46e5; letter-spacing: 0.02em; }
h1 { font-size: 1.35rem; line-height: 1.3; margin: 0 0 1rem; }
.owner { overflow-wrap: anywhere; }
p { line-height: 1.5; }
.fields { display: grid; gap: 0.25rem; margin: 1rem 0; padding: 0.75rem 1rem; background: #f4f5f7; border-radius: 8px; }
.fields div { display: flex; gap: 0.5rem; }
.fields dt { font-weight: 600; }
.fields dt::after { content: ':'; }
.fields dd { margin: 0; }
.warning { padding: 0.75rem 1rem; border-left: 4px solid #d97706; background: #fffbeb; border-radius: 4px; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.5rem; }
button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 8px; border: 1px solid #c7cbd4; background: #fff; color: inherit; cursor: pointer; }
button.primary { background: #4f46e5; border-color: #4f46e5; color: #fff; }
button:focus-visible { outline: 3px solid #a5b4fc; outline-offset: 2px; }
@media (prefers-color-scheme: dark) {
  body { background: #111827; color: #e5e7eb; }
  .card { background: #1f2937; box-shadow: none; }
  .fields { background: #111827; }
  .warning { background: #3b2f0b; }
  button { background: #1f2937; border-color: #4b5563; }
}
`
