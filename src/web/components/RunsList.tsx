import { useCallback, useEffect, useMemo, useState } from 'react'
import { agentsApi, RUN_STATUSES, type Agent, type Run, type Trigger } from '../agents-api.ts'
import { usePlatformTitles } from '../platform-titles.ts'
import { navigate } from '../router.ts'
import { runPath } from '../routes.ts'
import {
  filtersFromSearch,
  filtersToPath,
  isLive,
  mergeRuns,
  runQueryOf,
  TIME_RANGES,
  type RunFilters,
} from '../run-filters.ts'
import {
  formatDuration,
  errorSummary,
  formatTime,
  inputsPreview,
  runDuration,
  startedByText,
  STATUS_LABELS,
} from '../run-format.ts'
import { AgentFilter } from './AgentFilter.tsx'
import { Link } from './Link.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'
import { RunStatusBadge, usePolling } from './RunBits.tsx'

const PAGE_SIZE = 50
const LIVE_REFRESH_MS = 1500
const IDLE_REFRESH_MS = 10_000

interface Props {
  /** On an agent's Runs tab: only its runs, and no agent filter. */
  fixedAgent?: Agent
  search: string
  /** The page's own path, where the filters are kept in the query. */
  path: string
}

/** Runs, newest first, with filters kept in the address bar, paging, and a refresh while any is under way. */
export function RunsList({ fixedAgent, search, path }: Props) {
  const filters = filtersFromSearch(search)
  const key = JSON.stringify(filters)
  const [runs, setRuns] = useState<Run[] | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [loadingMore, setLoadingMore] = useState(false)
  const [triggers, setTriggers] = useState<Trigger[]>([])
  const [now, setNow] = useState(() => Date.now())

  const query = useCallback(() => {
    const q = runQueryOf(filters, Date.now())
    if (fixedAgent) q.agent_id = fixedAgent.id
    return { ...q, limit: PAGE_SIZE }
    // `key` stands for the filters' values.
  }, [key, fixedAgent?.id])

  useEffect(() => {
    const controller = new AbortController()
    setRuns(null)
    setError(null)
    agentsApi.runs(query(), controller.signal).then(
      (page) => {
        setRuns(page.runs)
        setNext(page.next_cursor)
      },
      (e) => !controller.signal.aborted && setError(e),
    )
    return () => controller.abort()
  }, [query])

  useEffect(() => {
    agentsApi.triggers().then(setTriggers, () => {})
  }, [])

  // Quickly while a shown run is under way; slowly otherwise, so a run a trigger starts shows up by itself.
  const live = !!runs?.some((r) => isLive(r.status))
  usePolling(
    async () => {
      const page = await agentsApi.runs(query())
      setRuns((shown) => mergeRuns(shown ?? [], page.runs))
      setNow(Date.now())
    },
    runs !== null,
    live ? LIVE_REFRESH_MS : IDLE_REFRESH_MS,
  )

  const more = async () => {
    if (!next) return
    setLoadingMore(true)
    try {
      const page = await agentsApi.runs({ ...query(), cursor: next })
      setRuns((shown) => [...(shown ?? []), ...page.runs.filter((r) => !shown?.some((s) => s.id === r.id))])
      setNext(page.next_cursor)
    } catch (e) {
      setError(e)
    } finally {
      setLoadingMore(false)
    }
  }

  const platformTitles = usePlatformTitles()
  const triggerTitles = useMemo(() => Object.fromEntries(triggers.map((t) => [t.id, t.title])), [triggers])
  const setFilter = (patch: Partial<RunFilters>) =>
    navigate(filtersToPath(path, { ...filters, ...patch }), { replace: true })
  const filtered = Object.values(filters).some(Boolean)

  return (
    <section className="runs" aria-label="Runs">
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter runs">
        {!fixedAgent && (
          <div className="field">
            <label htmlFor="runs-agent">Agent</label>
            <AgentFilter id="runs-agent" value={filters.agent} onChange={(agent) => setFilter({ agent })} />
          </div>
        )}
        <div className="field">
          <label htmlFor="runs-status">Status</label>
          <select
            id="runs-status"
            value={filters.status ?? ''}
            onChange={(e) => setFilter({ status: (e.target.value || undefined) as RunFilters['status'] })}
          >
            <option value="">Any status</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="runs-trigger">Trigger</label>
          <select
            id="runs-trigger"
            value={filters.trigger ?? ''}
            onChange={(e) => setFilter({ trigger: e.target.value || undefined })}
          >
            <option value="">Any trigger</option>
            {filters.trigger && !triggerTitles[filters.trigger] && (
              <option value={filters.trigger}>The chosen trigger</option>
            )}
            {[...new Set(triggers.map((t) => t.platform))].map((platform) => (
              <optgroup key={platform} label={platformTitles[platform] ?? platform}>
                {triggers
                  .filter((t) => t.platform === platform)
                  .map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.title}
                    </option>
                  ))}
              </optgroup>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="runs-range">Started</label>
          <select
            id="runs-range"
            value={filters.range ?? ''}
            onChange={(e) => setFilter({ range: (e.target.value || undefined) as RunFilters['range'] })}
          >
            <option value="">Any time</option>
            {TIME_RANGES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
      </form>

      {error !== null && <ProblemMessage error={error} />}
      {runs === null && error === null && <p className="muted">Loading runs…</p>}
      {runs?.length === 0 && (
        <p className="empty">{filtered ? 'No runs match these filters.' : 'No runs yet.'}</p>
      )}
      {runs && runs.length > 0 && (
        <ul className="item-list run-list" aria-live="polite">
          {runs.map((r) => (
            <li key={r.id} className="item run-row" data-run-status={r.status} data-testid="run-row">
              <RunStatusBadge status={r.status} />
              <Link to={runPath(r.id)} className="run-row-link">
                {fixedAgent
                  ? formatTime(r.created_at, now)
                  : `${r.agent_name} · ${formatTime(r.created_at, now)}`}
              </Link>
              <span className="muted run-row-by">
                {startedByText(r, r.trigger_id ? triggerTitles[r.trigger_id] : undefined)}
              </span>
              {r.test && <span className="tag">test</span>}
              {inputsPreview(r.inputs) && <span className="run-row-inputs">{inputsPreview(r.inputs)}</span>}
              <span className="muted run-row-duration">{formatDuration(runDuration(r, now))}</span>
              {r.status === 'failed' && r.error && (
                // Why it failed, in the list itself (issue 22, §5): one line, the whole message on its page.
                <span className="run-row-error" title={r.error.message}>
                  {errorSummary(r.error)}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {next && (
        <p>
          <button type="button" onClick={more} disabled={loadingMore}>
            {loadingMore ? 'Loading…' : 'Show older runs'}
          </button>
        </p>
      )}
    </section>
  )
}
