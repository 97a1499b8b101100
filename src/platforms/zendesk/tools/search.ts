import { z } from 'zod'
import type { ApiClient } from '../../../core/http/api-client.ts'
import { defineTool } from '../../../core/tools/define.ts'
import { Ticket } from '../schemas.ts'
import { plural } from '../links.ts'

const SEARCH_PAGE_SIZE = 100
/** Zendesk serves search results through offset pages only, and no further than 1000 results. */
const MAX_SEARCH_RESULTS = 1000

export const DateBound = z
  .string()
  .trim()
  .refine(
    (v) => /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)),
    {
      message: 'must be a date (YYYY-MM-DD) or an ISO date-time',
    },
  )

export async function searchTicketsPage(api: ApiClient, query: string, page: number, perPage: number) {
  const body = await api.get('/api/v2/search.json', {
    query: `type:ticket ${query}`,
    page,
    per_page: perPage,
    sort_by: 'created_at',
    sort_order: 'desc',
  })
  const tickets = (body.results as any[]).filter(
    (r) => r.result_type === undefined || r.result_type === 'ticket',
  )
  return { tickets, count: Number(body.count ?? tickets.length), hasMore: Boolean(body.next_page) }
}

export const searchTickets = defineTool({
  id: 'zendesk.search_tickets',
  title: 'Search Tickets',
  description:
    'Find tickets with the Zendesk search language, for example: status<solved priority:high assignee:me "printer on fire" -tags:spam created>2024-01-01.',
  effect: 'read',
  input: z.object({
    query: z.string().trim().min(1).max(1000),
    limit: z.number().int().min(1).max(MAX_SEARCH_RESULTS).default(100),
  }),
  output: z.object({ tickets: z.array(Ticket), count: z.number().int() }),
  summarize: ({ tickets, count }, { input }) => ({
    text:
      count > tickets.length
        ? `${plural(count, 'ticket')} match "${input.query}"; showing ${tickets.length}`
        : `${plural(count, 'ticket')} match "${input.query}"`,
  }),
  async run({ api }, { query, limit }) {
    const tickets: any[] = []
    let count = 0
    for (let page = 1; tickets.length < limit; page++) {
      const result = await searchTicketsPage(api, query, page, Math.min(SEARCH_PAGE_SIZE, limit))
      tickets.push(...result.tickets)
      count = result.count
      if (!result.hasMore) break
    }
    return { tickets: tickets.slice(0, limit), count }
  },
})
