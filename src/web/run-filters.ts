// The runs list's filters, kept in the address bar (`/runs?agent=…&status=failed&range=day`), and
// the REST query they stand for.
import { RUN_STATUSES, type Run, type RunQuery, type RunStatus } from './agents-api.ts'
import { withQuery } from './url-state.ts'

export type TimeRange = 'hour' | 'day' | 'week'
export const TIME_RANGES: ReadonlyArray<{ value: TimeRange; label: string; ms: number }> = [
  { value: 'hour', label: 'Last hour', ms: 3_600_000 },
  { value: 'day', label: 'Last day', ms: 86_400_000 },
  { value: 'week', label: 'Last week', ms: 7 * 86_400_000 },
]

export interface RunFilters {
  agent?: string
  status?: RunStatus
  trigger?: string
  range?: TimeRange
}

/** Reads the filters from a query string; unknown statuses and ranges are ignored. */
export function filtersFromSearch(search: string): RunFilters {
  const params = new URLSearchParams(search)
  const filters: RunFilters = {}
  const agent = params.get('agent')?.trim()
  if (agent) filters.agent = agent
  const status = params.get('status')
  if (status && (RUN_STATUSES as readonly string[]).includes(status)) filters.status = status as RunStatus
  const trigger = params.get('trigger')?.trim()
  if (trigger) filters.trigger = trigger
  const range = params.get('range')
  if (TIME_RANGES.some((r) => r.value === range)) filters.range = range as TimeRange
  return filters
}

/** The address for `path` with these filters. */
export function filtersToPath(path: string, filters: RunFilters): string {
  return withQuery(path, {
    agent: filters.agent,
    status: filters.status,
    trigger: filters.trigger,
    range: filters.range,
  })
}

/** The REST query (GET /v1/runs) for the filters, at time `now`. */
export function runQueryOf(filters: RunFilters, now: number): RunQuery {
  const q: RunQuery = {}
  if (filters.agent) q.agent_id = filters.agent
  if (filters.status) q.status = filters.status
  if (filters.trigger) q.trigger_id = filters.trigger
  const range = TIME_RANGES.find((r) => r.value === filters.range)
  if (range) q.since = new Date(now - range.ms).toISOString()
  return q
}

export const isLive = (status: string) => status === 'queued' || status === 'running'

/** Not ended yet: live, or waiting for a person's decision (which a cancel also ends). */
export const isUnfinished = (status: string) => isLive(status) || status === 'waiting_for_approval'

/**
 * The list after a refresh of its first page: runs the refresh saw are updated in place or added on
 * top (newest first), runs further down (from later pages) stay as they were.
 */
export function mergeRuns(shown: readonly Run[], fresh: readonly Run[]): Run[] {
  const byId = new Map(fresh.map((r) => [r.id, r]))
  const known = new Set(shown.map((r) => r.id))
  const added = fresh.filter((r) => !known.has(r.id))
  return [...added, ...shown.map((r) => byId.get(r.id) ?? r)]
}
