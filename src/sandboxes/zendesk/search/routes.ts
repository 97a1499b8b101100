import { invalidSearch } from '../errors.ts'
import { jsonResponse, type SandboxResponse } from '../http.ts'
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  sortItems,
  urlWith,
  type Ordering,
  type SortKey,
} from '../pagination.ts'
import { organizationJson, ticketJson, userJson } from '../presenters.ts'
import type { ApiContext, ApiRoute } from '../router.ts'
import { priorityRank, statusRank } from '../ticket-order.ts'
import { allowedResultTypes, matches, type Candidate } from './matcher.ts'
import { parseQuery } from './parser.ts'

/**
 * `GET /api/v2/search` and `/search/count` (search.yml): offset pagination only, `sort_by`
 * one of updated_at, created_at, priority, status, ticket_type, `sort_order` default desc.
 */

/** Search serves at most 1,000 results; deeper pages get 422 (probe-captured wording). */
export const SEARCH_RESULT_LIMIT = 1000

const SORT_FIELDS = ['updated_at', 'created_at', 'priority', 'status', 'ticket_type'] as const
const TYPE_RANK: Record<Candidate['type'], number> = { ticket: 0, user: 1, organization: 2 }

function sortKey(field: string, candidate: Candidate): SortKey {
  const tail = [TYPE_RANK[candidate.type], candidate.record.id]
  const record = candidate.record
  switch (field) {
    case 'created_at':
      return [record.createdAt, ...tail]
    case 'priority':
      return [candidate.type === 'ticket' ? priorityRank(candidate.record.priority) : null, ...tail]
    case 'status':
      return [candidate.type === 'ticket' ? statusRank(candidate.record.status) : null, ...tail]
    case 'ticket_type':
      return [candidate.type === 'ticket' ? candidate.record.type : null, ...tail]
    default:
      // Relevance has no equivalent here; recency (updated_at) stands in for it.
      return [record.updatedAt, ...tail]
  }
}

type SearchOutcome = { ok: true; results: Candidate[] } | { ok: false; response: SandboxResponse }

function runSearch(ctx: ApiContext): SearchOutcome {
  const query = ctx.req.query.get('query')
  if (query === null || query.trim() === '')
    return { ok: false, response: invalidSearch('The query parameter is required') }
  const parsed = parseQuery(query, ctx.now)
  if (!parsed.ok) return { ok: false, response: invalidSearch(`Invalid search query: ${parsed.problem}`) }
  const types = allowedResultTypes(parsed.terms)
  const candidates: Candidate[] = [
    ...(types.has('ticket')
      ? [...ctx.account.tickets.values()].map((record) => ({ type: 'ticket' as const, record }))
      : []),
    ...(types.has('user')
      ? [...ctx.account.users.values()].map((record) => ({ type: 'user' as const, record }))
      : []),
    ...(types.has('organization')
      ? [...ctx.account.organizations.values()].map((record) => ({ type: 'organization' as const, record }))
      : []),
  ]
  const matchContext = { account: ctx.account, me: ctx.user }
  return { ok: true, results: candidates.filter((c) => matches(matchContext, parsed.terms, c)) }
}

function resultJson(ctx: ApiContext, candidate: Candidate): Record<string, unknown> {
  switch (candidate.type) {
    case 'ticket':
      return { ...ticketJson(ctx.account, candidate.record, ctx.base), result_type: 'ticket' }
    case 'user':
      return { ...userJson(candidate.record, ctx.base), result_type: 'user' }
    case 'organization':
      return { ...organizationJson(candidate.record, ctx.base), result_type: 'organization' }
  }
}

function positiveInt(raw: string | null): number | null {
  return raw !== null && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : null
}

function search(ctx: ApiContext): SandboxResponse {
  const { query } = ctx.req
  // Search has no cursor pagination: `page[size]` turns `page` into a hash, which Zendesk
  // rejects with "page must be an integer" (probe-captured).
  if ([...query.keys()].some((key) => key.startsWith('page[')))
    return invalidSearch('page must be an integer')
  const outcome = runSearch(ctx)
  if (!outcome.ok) return outcome.response
  const sortBy = query.get('sort_by') ?? ''
  const field = (SORT_FIELDS as readonly string[]).includes(sortBy) ? sortBy : 'relevance'
  const ordering: Ordering<Candidate> = {
    key: (c) => sortKey(field, c),
    descending: query.get('sort_order') !== 'asc',
  }
  const sorted = sortItems(outcome.results, ordering)

  const perPage = Math.min(positiveInt(query.get('per_page')) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
  const page = positiveInt(query.get('page')) ?? 1
  if (page * perPage > SEARCH_RESULT_LIMIT) {
    return invalidSearch(
      'Invalid search: Requested response size was greater than Search Response Limits',
      422,
    )
  }
  const start = (page - 1) * perPage
  const hasNext = start + perPage < sorted.length && (page + 1) * perPage <= SEARCH_RESULT_LIMIT
  return jsonResponse(200, {
    results: sorted.slice(start, start + perPage).map((c) => resultJson(ctx, c)),
    facets: null,
    next_page: hasNext ? urlWith(ctx.req, { page: String(page + 1), per_page: String(perPage) }) : null,
    previous_page: page > 1 ? urlWith(ctx.req, { page: String(page - 1), per_page: String(perPage) }) : null,
    // The true total, even past what can be paged to (as Zendesk reports it).
    count: sorted.length,
  })
}

function count(ctx: ApiContext): SandboxResponse {
  const outcome = runSearch(ctx)
  return outcome.ok ? jsonResponse(200, { count: outcome.results.length }) : outcome.response
}

/** Search is agent-only; with scoped tokens it needs `read` or `tickets:read`. */
export const searchRoutes: ApiRoute[] = [
  { method: 'GET', path: '/api/v2/search', access: 'agent', scope: 'tickets', handle: search },
  { method: 'GET', path: '/api/v2/search/count', access: 'agent', scope: 'tickets', handle: count },
]
