import { z } from 'zod'
import type { ApiClient } from '../../../core/http/api-client.ts'
import { defineTool } from '../../../core/tools/define.ts'
import { Attachment } from '../attachments.ts'
import { Comment, Person, Ticket, TicketId } from '../schemas.ts'
import { plural, ticketLabel, ticketUrl } from '../links.ts'
import { ticketOptions } from '../options.ts'

/** Zendesk's cursor pages hold at most 100 comments, and a ticket at most 5000 (docs/platforms/zendesk.md, "Facts"). */
const COMMENTS_PAGE_SIZE = 100
const MAX_COMMENT_PAGES = 50

export const getTicketInfo = defineTool({
  id: 'zendesk.get_ticket',
  title: 'Get Ticket Info',
  description:
    'Get a ticket with its status, priority, assignee, requester and every comment, public replies and internal notes alike, with the people named and the files attached.',
  effect: 'read',
  options: { ticket_id: ticketOptions },
  input: z.object({ ticket_id: TicketId }),
  output: Ticket.extend({
    requester: Person.nullable(),
    assignee: Person.nullable(),
    comments: z.array(Comment.extend({ author: Person.nullable(), attachments: z.array(Attachment) })),
  }),
  summarize: (ticket, { baseUrl }) => ({
    text: `${ticketLabel(ticket)} (${ticket.status}, ${plural(ticket.comments.length, 'comment')})`,
    url: ticketUrl(baseUrl, ticket.id),
  }),
  async run({ api }, { ticket_id }) {
    // `include=users` sideloads the people each response refers to, sparing a request per person.
    const [{ ticket, users = [] }, { comments, authors }] = await Promise.all([
      api.get(`/api/v2/tickets/${ticket_id}.json`, { include: 'users' }),
      allComments(api, ticket_id),
    ])
    const people = peopleById([...users, ...authors])
    // The parsed responses belong to this call alone: naming the people in place spares copying the
    // ticket and every comment, which cost more than parsing them.
    ticket.requester = people.get(ticket.requester_id) ?? null
    ticket.assignee = people.get(ticket.assignee_id) ?? null
    for (const comment of comments) comment.author = people.get(comment.author_id) ?? null
    ticket.comments = comments
    return ticket
  },
})

async function allComments(api: ApiClient, ticketId: number): Promise<{ comments: any[]; authors: any[] }> {
  const comments: any[] = []
  const authors: any[] = []
  let after: string | undefined
  for (let page = 0; page < MAX_COMMENT_PAGES; page++) {
    const body = await api.get(`/api/v2/tickets/${ticketId}/comments.json`, {
      'page[size]': COMMENTS_PAGE_SIZE,
      'page[after]': after,
      include: 'users',
    })
    comments.push(...body.comments)
    authors.push(...(body.users ?? []))
    if (!body.meta?.has_more || !body.meta.after_cursor) break
    after = body.meta.after_cursor
  }
  return { comments, authors }
}

function peopleById(users: any[]): Map<number | null, { id: number; name: string; email: string | null }> {
  return new Map(users.map((u) => [u.id, { id: u.id, name: u.name, email: u.email ?? null }]))
}
