import { escapeHtml, htmlResponse, type SandboxResponse } from './http.ts'
import type { Account } from './model.ts'

/**
 * `GET {base}/agent/tickets/{id}`: a plain read-only page standing in for Zendesk's agent interface,
 * so the links Switchyard shows for sandbox tickets lead somewhere (docs/sandbox.md).
 */
export function agentTicketPage(account: Account, id: number): SandboxResponse {
  const ticket = account.tickets.get(id)
  const title = ticket ? `#${id} ${ticket.subject ?? '(no subject)'}` : `Ticket #${id} not found`
  const body = !ticket
    ? `<h1>${escapeHtml(title)}</h1><p>There is no ticket #${id} in ${escapeHtml(account.subdomain)}; it may have been deleted.</p>`
    : `<h1>${escapeHtml(title)}</h1>
<p>Status: <strong>${escapeHtml(ticket.status)}</strong>${ticket.priority ? ` · Priority: ${escapeHtml(ticket.priority)}` : ''}</p>
<ol>${(account.comments.get(id) ?? []).map((c) => `<li class="${c.public ? 'public' : 'internal'}"><p><strong>${escapeHtml(account.users.get(c.authorId)?.name ?? 'Unknown')}</strong> · ${new Date(c.createdAt).toISOString()} · ${c.public ? 'Public reply' : 'Internal note'}</p><p>${escapeHtml(c.plainBody)}</p></li>`).join('\n')}</ol>`
  return htmlResponse(
    ticket ? 200 : 404,
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Zendesk sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#2f3941}
ol{list-style:none;padding:0}li{border:1px solid #d8dcde;border-radius:4px;padding:.5rem 1rem;margin:.5rem 0;white-space:pre-wrap;overflow-wrap:anywhere}
.internal{background:#fff6e5}</style></head>
<body><p>Zendesk sandbox · ${escapeHtml(account.subdomain)}</p>
${body}
</body></html>
`,
  )
}
