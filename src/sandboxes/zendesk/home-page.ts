import { handleActAs } from './api.ts'
import { escapeHtml, htmlResponse, type IncomingRequest, type SandboxResponse } from './http.ts'
import { TICKET_PRIORITIES, TICKET_STATUSES, type Account, type User } from './model.ts'
import type { ZendeskSandbox } from './sandbox.ts'
import { SEED_PASSWORD } from './seed.ts'
import { homeLayout, options, refusalInWords, required, type HomeForms } from '../kit/home-page.ts'

/**
 * `GET {prefix}` (docs/sandbox.md "Home pages"): every account's people and tickets, with forms to
 * open a ticket as a customer (an end user, through the Requests API as the help center does) and
 * to change one as an agent (status, priority, assignee, a comment), so a newcomer can make a
 * Switchyard trigger fire. Each change is one API request as that person through the pipeline
 * `POST /_control/accounts/{sub}/act` uses (events/control.ts: the person's role applies, writes
 * come via `web`), so events, webhooks and searches see it as an API change.
 */

const isAgent = (u: User) => u.role === 'agent' || u.role === 'admin'
const people = (users: User[]) => users.map((u) => ({ value: String(u.id), label: `${u.name} (${u.email})` }))
const UNCHANGED = { value: '', label: '(unchanged)' }

function accountSection(account: Account, forms: HomeForms, root: string): string {
  const users = [...account.users.values()].filter((u) => u.active)
  const customers = users.filter((u) => u.role === 'end-user')
  const agents = users.filter(isAgent)
  const tickets = [...account.tickets.values()].sort((a, b) => a.id - b.id)
  const name = (id: number | null) => (id === null ? '—' : (account.users.get(id)?.name ?? `#${id}`))
  const ticketRows = tickets
    .map(
      (t) =>
        `<tr data-ticket="${t.id}"><td><a href="${escapeHtml(`${root}/${account.subdomain}/agent/tickets/${t.id}`)}">#${t.id}</a></td><td>${escapeHtml(t.subject ?? '(no subject)')}</td><td>${escapeHtml(t.status)}</td><td>${escapeHtml(t.priority ?? '—')}</td><td>${escapeHtml(name(t.requesterId))}</td><td>${escapeHtml(name(t.assigneeId))}</td></tr>`,
    )
    .join('\n')
  const userRows = users
    .map(
      (u) =>
        `<tr><td>${escapeHtml(u.name)}</td><td>${escapeHtml(u.email)}</td><td>${escapeHtml(u.role)}</td></tr>`,
    )
    .join('\n')
  const head = (step: string) => `${forms.hidden()}
<input type="hidden" name="step" value="${step}">
<input type="hidden" name="account" value="${escapeHtml(account.subdomain)}">`
  const sub = escapeHtml(account.subdomain)
  const openForm = customers.length
    ? `<form method="post" action="${escapeHtml(root)}" class="change" id="open-${sub}">
<h3>Open a ticket as a customer</h3>
${head('open')}
<label>Customer <select name="customer">
${options(people(customers))}
</select></label>
<label>Subject <input type="text" name="subject" required></label>
<label>Description <textarea name="body" rows="3" required></textarea></label>
<button type="submit">Submit request</button>
</form>`
    : ''
  const changeForm =
    agents.length && tickets.length
      ? `<form method="post" action="${escapeHtml(root)}" class="change" id="change-${sub}">
<h3>Change a ticket as an agent</h3>
${head('change')}
<label>Agent <select name="agent">
${options(people(agents), String(agents.find((a) => a.role === 'agent')?.id ?? agents[0]?.id))}
</select></label>
<label>Ticket <select name="ticket">
${options(tickets.map((t) => ({ value: String(t.id), label: `#${t.id} ${t.subject ?? '(no subject)'}` })))}
</select></label>
<label>Status <select name="status">
${options([UNCHANGED, ...TICKET_STATUSES.map((s) => ({ value: s, label: s }))])}
</select></label>
<label>Priority <select name="priority">
${options([UNCHANGED, ...TICKET_PRIORITIES.map((p) => ({ value: p, label: p }))])}
</select></label>
<label>Assignee <select name="assignee">
${options([UNCHANGED, ...people(agents)])}
</select></label>
<label>Comment <textarea name="comment" rows="2"></textarea></label>
<label><input type="checkbox" name="internal" value="1"> Internal note (not shown to the customer)</label>
<button type="submit">Update ticket</button>
</form>`
      : ''
  return `<section class="account" id="account-${sub}">
<h2>Account <code>${sub}</code></h2>
<div class="forms">
${openForm}
${changeForm}
</div>
<h3>Tickets</h3>
<div class="table-wrap"><table class="tickets"><thead><tr><th>Id</th><th>Subject</th><th>Status</th><th>Priority</th><th>Requester</th><th>Assignee</th></tr></thead>
<tbody>${ticketRows}</tbody></table></div>
<h3>People</h3>
<div class="table-wrap"><table class="people"><thead><tr><th>Name</th><th>Email</th><th>Role</th></tr></thead>
<tbody>${userRows}</tbody></table></div>
</section>`
}

export function zendeskHomePage(
  sandbox: ZendeskSandbox,
  forms: HomeForms,
  req: IncomingRequest,
  root: string,
): SandboxResponse {
  const accounts = [...sandbox.store.accounts.values()]
  return htmlResponse(
    200,
    homeLayout(
      'Zendesk sandbox',
      `<nav><a href="/">All sandboxes</a></nav>
<h1>Zendesk sandbox</h1>
${forms.banner(req.query)}<p>A local stand-in for Zendesk. Open a ticket as a customer or change one as an agent, and Switchyard's Zendesk triggers see it as they would on zendesk.com. Each person's password is <code>${escapeHtml(SEED_PASSWORD)}</code> (seeded accounts).</p>
${accounts.map((a) => accountSection(a, forms, root)).join('\n') || '<p>No accounts.</p>'}`,
    ),
  )
}

/** `POST {prefix}`: one of the page's forms; 303 back with what happened, or a page saying why not. */
export async function postZendeskHome(
  sandbox: ZendeskSandbox,
  forms: HomeForms,
  req: IncomingRequest,
  root: string,
): Promise<SandboxResponse> {
  const read = forms.read(req, { url: root, title: 'Zendesk sandbox' })
  if (!read.ok) return read.response
  const { fields, refuse } = read
  const step = fields.step
  if (step !== 'open' && step !== 'change') return refuse(400, 'step must be open or change.')
  const subdomain = required(fields, 'account')
  if (!subdomain) return refuse(400, 'account is required.')
  const account = sandbox.store.account(subdomain)
  if (!account) return refuse(404, `No account "${subdomain}" in this sandbox.`)
  const person = (name: string, what: string): User | SandboxResponse => {
    const ref = required(fields, name)
    if (!ref) return refuse(400, `${name} is required: choose ${what}.`)
    const user = /^\d+$/.test(ref) ? account.users.get(Number(ref)) : sandbox.store.userByEmail(account, ref)
    return user && user.active ? user : refuse(404, `No ${name} "${ref}" in ${account.subdomain}.`)
  }
  const act = (user: User, method: 'POST' | 'PUT', path: string, body: unknown) =>
    handleActAs(
      sandbox,
      account,
      user,
      {
        method,
        path,
        query: new URLSearchParams(),
        headers: { 'content-type': 'application/json' },
        rawBody: JSON.stringify(body),
        origin: req.origin,
        remoteAddress: req.remoteAddress,
      },
      path,
      `${root}/${account.subdomain}`,
    )

  if (step === 'open') {
    const customer = person('customer', 'a customer')
    if ('status' in customer) return customer
    const subject = required(fields, 'subject')
    if (!subject) return refuse(400, 'subject is required.')
    const body = required(fields, 'body')
    if (!body) return refuse(400, 'body is required: describe the request.')
    const answer = await act(customer, 'POST', '/api/v2/requests', {
      request: { subject, comment: { body } },
    })
    if (answer.status !== 201) return refuse(answer.status, refusalInWords('Zendesk', answer))
    const id = JSON.parse(answer.payload ?? '{}').request?.id
    return forms.done(root, `${customer.name} opened ticket #${id} “${subject}” in ${account.subdomain}.`)
  }

  const agent = person('agent', 'an agent')
  if ('status' in agent) return agent
  const ticketRef = required(fields, 'ticket')
  if (!ticketRef) return refuse(400, 'ticket is required: choose a ticket.')
  const ticket = /^\d+$/.test(ticketRef) ? account.tickets.get(Number(ticketRef)) : undefined
  if (!ticket) return refuse(404, `No ticket "${ticketRef}" in ${account.subdomain}.`)
  const change: Record<string, unknown> = {}
  const said: string[] = []
  const status = required(fields, 'status')
  if (status) {
    if (!(TICKET_STATUSES as readonly string[]).includes(status))
      return refuse(400, `status must be one of ${TICKET_STATUSES.join(', ')}.`)
    change.status = status
    said.push(`status ${status}`)
  }
  const priority = required(fields, 'priority')
  if (priority) {
    if (!(TICKET_PRIORITIES as readonly string[]).includes(priority))
      return refuse(400, `priority must be one of ${TICKET_PRIORITIES.join(', ')}.`)
    change.priority = priority
    said.push(`priority ${priority}`)
  }
  if (required(fields, 'assignee')) {
    const assignee = person('assignee', 'an agent')
    if ('status' in assignee) return assignee
    change.assignee_id = assignee.id
    said.push(`assignee ${assignee.name}`)
  }
  const comment = required(fields, 'comment')
  if (comment) {
    const internal = fields.internal === '1'
    change.comment = { body: comment, public: !internal }
    said.push(internal ? 'an internal note' : 'a public reply')
  }
  if (said.length === 0)
    return refuse(400, 'Nothing to change: choose a status, priority or assignee, or write a comment.')
  const answer = await act(agent, 'PUT', `/api/v2/tickets/${ticket.id}`, { ticket: change })
  if (answer.status !== 200) return refuse(answer.status, refusalInWords('Zendesk', answer))
  return forms.done(root, `${agent.name} updated ticket #${ticket.id}: ${said.join(', ')}.`)
}
