import { useEffect, useRef, useState } from 'react'
import { agentsApi, type Agent, type Run } from '../agents-api.ts'
import { Link } from '../components/Link.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { RunStatusBadge } from '../components/RunBits.tsx'
import { agentPath, runPath } from '../routes.ts'
import { formatTime } from '../run-format.ts'

const KIND_LABELS: Record<string, string> = { steps: 'Steps', external: 'External' }
const SEARCH_DELAY_MS = 250

export function AgentsPage() {
  const [agents, setAgents] = useState<Agent[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [lastRuns, setLastRuns] = useState<Record<string, Run>>({})
  // A page at a time, searched by the server (docs/api.md, "Lists are paged"): a list of thousands
  // is never loaded whole.
  const [search, setSearch] = useState('')
  const [next, setNext] = useState<string | null>(null)
  const [loadingMore, setLoadingMore] = useState(false)
  const searched = useRef('')

  useEffect(() => {
    let current = true
    const timer = setTimeout(
      () => {
        searched.current = search
        agentsApi.page({ q: search.trim() || undefined }).then(
          (page) => {
            if (!current) return
            setAgents(page.agents)
            setNext(page.next_cursor)
            setError(null)
          },
          (e) => current && setError(e),
        )
      },
      agents === null ? 0 : SEARCH_DELAY_MS,
    )
    return () => {
      current = false
      clearTimeout(timer)
    }
    // Only the search text starts a new first page (the first one at once).
  }, [search])

  const showMore = async () => {
    if (!next) return
    setLoadingMore(true)
    try {
      const page = await agentsApi.page({ q: searched.current.trim() || undefined, cursor: next })
      setAgents((shown) => [...(shown ?? []), ...page.agents])
      setNext(page.next_cursor)
    } catch (e) {
      setError(e)
    } finally {
      setLoadingMore(false)
    }
  }

  useEffect(() => {
    document.title = 'Agents · Switchyard'
    // One page of recent runs gives most agents their last run; an agent not in it simply shows none.
    agentsApi.runs({ limit: 100 }).then(
      ({ runs }) => {
        const last: Record<string, Run> = {}
        for (const r of runs) last[r.agent_id] ??= r
        setLastRuns(last)
      },
      () => {},
    )
  }, [])

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Agents</h1>
        <Link className="button" to="/agents/new">
          New agent
        </Link>
      </div>
      <p className="muted">
        An agent runs its steps on your integrations, started by hand, over the API or by a trigger.
      </p>
      <input
        type="search"
        className="list-search"
        aria-label="Search agents"
        placeholder="Search agents by name"
        value={search}
        maxLength={200}
        onChange={(e) => setSearch(e.target.value)}
      />
      {error !== null && <ProblemMessage error={error} />}
      {agents === null && error === null && <p className="muted">Loading agents…</p>}
      {agents?.length === 0 && !search.trim() && (
        <p className="empty">
          No agents yet. <Link to="/agents/new">Create the first one</Link>.
        </p>
      )}
      {agents?.length === 0 && search.trim() !== '' && <p className="empty">No agent matches “{search}”.</p>}
      {agents && agents.length > 0 && (
        <ul className="item-list" aria-label="Agents">
          {agents.map((a) => {
            const last = lastRuns[a.id]
            return (
              <li key={a.id} className="item agent-item" data-agent-name={a.name}>
                <div className="item-main">
                  <Link to={agentPath(a.id)} className="item-title">
                    {a.name}
                  </Link>
                  <span className="tag">{KIND_LABELS[a.kind] ?? a.kind}</span>
                  <span className="muted">version {a.version}</span>
                  {last && (
                    <span className="agent-last-run">
                      <span className="muted">Last run</span> <RunStatusBadge status={last.status} />{' '}
                      <Link to={runPath(last.id)} className="muted">
                        {formatTime(last.created_at)}
                      </Link>
                    </span>
                  )}
                </div>
                {a.description && <p className="agent-description">{a.description}</p>}
              </li>
            )
          })}
        </ul>
      )}
      {next && (
        <button type="button" className="secondary" onClick={() => void showMore()} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'Show more'}
        </button>
      )}
    </>
  )
}
