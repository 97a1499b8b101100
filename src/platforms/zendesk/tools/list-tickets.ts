import { z } from 'zod'
import { invalidInput } from '../../../core/errors.ts'
import { defineTool } from '../../../core/tools/define.ts'
import { positiveInt, Priority, Status, Ticket } from '../schemas.ts'
import { DateBound, searchTicketsPage } from './search.ts'
import { plural } from '../links.ts'
import { assigneeOptions } from '../options.ts'

const MAX_PAGE_SIZE = 100

// /api/v2/tickets has no filters, so filtered listings go through the search API; the cursor says
// which of the two produced it ("c:" a Zendesk cursor, "p:" a search page number).
export const listTickets = defineTool({
  id: 'zendesk.list_tickets',
  title: 'List Tickets',
  description:
    'List tickets, newest first, optionally filtered by status, priority, assignee and creation date range. Pass next_cursor back to get the next page.',
  effect: 'read',
  options: { assignee: assigneeOptions },
  input: z.object({
    status: Status.optional(),
    priority: Priority.optional(),
    assignee: z
      .union([positiveInt('must be a user id'), z.string().trim().email(), z.enum(['none', 'me'])], {
        error: 'must be a user id, an email, "me" or "none"',
      })
      .optional(),
    created_after: DateBound.optional().describe('YYYY-MM-DD or an ISO date-time; exclusive'),
    created_before: DateBound.optional().describe('YYYY-MM-DD or an ISO date-time; exclusive'),
    limit: z.number().int().min(1).max(MAX_PAGE_SIZE).default(25),
    cursor: z
      .string()
      .regex(/^[cp]:.+$/, 'must be a next_cursor returned by List Tickets')
      .optional(),
  }),
  output: z.object({ tickets: z.array(Ticket), next_cursor: z.string().nullable() }),
  summarize: ({ tickets, next_cursor }) => ({
    text: `${plural(tickets.length, 'ticket')}${next_cursor ? ', more on the next page' : ''}`,
  }),
  async run({ api }, input) {
    const terms = [
      input.status && `status:${input.status}`,
      input.priority && `priority:${input.priority}`,
      input.assignee !== undefined && `assignee:${input.assignee}`,
      input.created_after && `created>${input.created_after}`,
      input.created_before && `created<${input.created_before}`,
    ].filter((t): t is string => Boolean(t))

    if (terms.length === 0) {
      if (input.cursor?.startsWith('p:'))
        throw invalidInput([
          { field: 'input.cursor', message: 'belongs to a filtered listing; pass the same filters' },
        ])
      const body = await api.get('/api/v2/tickets.json', {
        'page[size]': input.limit,
        'page[after]': input.cursor?.slice(2),
        sort: '-id', // cursor pagination sorts only by id, updated_at or status; ids grow with creation
      })
      return {
        tickets: body.tickets,
        next_cursor: body.meta?.has_more && body.meta.after_cursor ? `c:${body.meta.after_cursor}` : null,
      }
    }

    if (input.cursor?.startsWith('c:'))
      throw invalidInput([
        { field: 'input.cursor', message: 'belongs to an unfiltered listing; drop the filters' },
      ])
    const page = input.cursor ? Number(input.cursor.slice(2)) : 1
    if (!Number.isInteger(page) || page < 1)
      throw invalidInput([
        { field: 'input.cursor', message: 'must be a next_cursor returned by List Tickets' },
      ])
    const result = await searchTicketsPage(api, terms.join(' '), page, input.limit)
    return { tickets: result.tickets, next_cursor: result.hasMore ? `p:${page + 1}` : null }
  },
})
