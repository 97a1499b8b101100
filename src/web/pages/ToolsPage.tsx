import { useEffect, useRef, useState } from 'react'
import { agentsApi, type Trigger } from '../agents-api.ts'
import { api, type Tool } from '../api.ts'
import { Link } from '../components/Link.tsx'
import { EffectBadge, Tag } from '../components/Badges.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { ToolRunner } from '../components/ToolRunner.tsx'
import { usePlatformTitles } from '../platform-titles.ts'
import { navigate } from '../router.ts'
import { withQuery } from '../url-state.ts'

/** Typing pauses this long before the search runs. */
const SEARCH_DEBOUNCE_MS = 250

export function ToolsPage({ search }: { search: string }) {
  const params = new URLSearchParams(search)
  const urlQuery = params.get('q') ?? ''
  const selectedId = params.get('tool')
  const [query, setQuery] = useState(urlQuery)
  const [tools, setTools] = useState<Tool[] | null>(null)
  const [triggers, setTriggers] = useState<Trigger[]>([])
  const [error, setError] = useState<unknown>(null)
  const [selected, setSelected] = useState<Tool | null>(null)
  const [selectedError, setSelectedError] = useState<unknown>(null)
  const platformTitles = usePlatformTitles()

  useEffect(() => {
    document.title = 'Tool steps · Switchyard'
  }, [])

  // Search as the person types (debounced); the query is kept in the address bar. The first search,
  // on opening the page, is not typing: it runs at once.
  const searched = useRef(false)
  useEffect(() => {
    const controller = new AbortController()
    const delay = searched.current ? SEARCH_DEBOUNCE_MS : 0
    searched.current = true
    const timer = setTimeout(() => {
      api.searchTools(query, controller.signal).then(
        (found) => {
          setTools(found)
          setError(null)
        },
        (e) => {
          if (!controller.signal.aborted) setError(e)
        },
      )
      // Triggers sit beside the steps in the catalogue, found by the same words ("board", "ticketing").
      agentsApi.triggers(query, controller.signal).then(setTriggers, () => setTriggers([]))
    }, delay)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [query])

  useEffect(() => {
    if (!selectedId) {
      setSelected(null)
      return
    }
    const inList = tools?.find((t) => t.id === selectedId)
    if (inList) {
      setSelected(inList)
      return
    }
    let live = true
    api.getTool(selectedId).then(
      (t) => live && setSelected(t),
      (e) => live && setSelectedError(e),
    )
    return () => {
      live = false
    }
    // `tools` is left out on purpose: the list is only a shortcut, and a new search must not
    // refetch or reset the tool being edited.
  }, [selectedId])

  const setUrl = (q: string, tool: string | null) =>
    navigate(withQuery('/tools', { q, tool }), { replace: true })

  const onQuery = (q: string) => {
    setQuery(q)
    setUrl(q, selectedId)
  }

  const choose = (t: Tool) => {
    setSelectedError(null)
    setSelected(t)
    navigate(withQuery('/tools', { q: query, tool: t.id }))
    // The form may be far from the list item just pressed (on a phone it sits above the list):
    // take the person to its heading.
    requestAnimationFrame(() => document.querySelector<HTMLElement>('.tool-detail h2')?.focus())
  }

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Tool steps</h1>
      </div>
      <form className="search" role="search" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="tool-search">Search tool steps</label>
        <input
          id="tool-search"
          type="search"
          name="q"
          value={query}
          placeholder="e.g. create ticket, ticketing, deploy"
          autoComplete="off"
          onChange={(e) => onQuery(e.target.value)}
        />
      </form>

      {/* has-selection: on a phone the chosen step's form comes first, not below every step and trigger. */}
      <div className={selected ? 'tools-layout has-selection' : 'tools-layout'}>
        <div className="tool-results">
          {error !== null && <ProblemMessage error={error} />}
          {tools === null && error === null && <p className="muted">Searching…</p>}
          {tools?.length === 0 && <p className="empty">No tool steps match “{query}”.</p>}
          {tools && tools.length > 0 && (
            <ul className="item-list tool-list" aria-label="Search results">
              {tools.map((t) => (
                <li key={t.id}>
                  <button
                    type="button"
                    className="tool-result"
                    aria-current={selected?.id === t.id ? 'true' : undefined}
                    onClick={() => choose(t)}
                  >
                    <span className="item-title">{t.title}</span>
                    <span className="tool-result-meta">
                      <span className="muted">{platformTitles[t.platform] ?? t.platform}</span>{' '}
                      <EffectBadge effect={t.effect} /> {t.legacy && <Tag>legacy</Tag>}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {triggers.length > 0 && (
            <section aria-labelledby="catalogue-triggers" className="catalogue-triggers">
              <h2 id="catalogue-triggers">Triggers{query.trim() ? ' that match' : ''}</h2>
              <p className="muted">
                They start an agent when something happens; attach one on an agent’s Triggers tab (
                <Link to="/agents">Agents</Link>).
              </p>
              <ul className="item-list" aria-label="Triggers">
                {triggers.map((t) => (
                  <li key={t.id} className="trigger-entry">
                    <span className="item-title">{t.title}</span>
                    <span className="tool-result-meta">
                      <span className="muted">{platformTitles[t.platform] ?? t.platform}</span>{' '}
                      <Tag>{t.mode === 'polled' ? 'polled' : 'instant'}</Tag>
                      {t.requiredPlan && <Tag>{`${t.requiredPlan} plan`}</Tag>}
                    </span>
                    <span className="muted trigger-description">{t.description}</span>
                  </li>
                ))}
              </ul>
            </section>
          )}
        </div>
        <div className="tool-pane">
          {selectedError !== null && !selected && <ProblemMessage error={selectedError} />}
          {selected ? (
            <ToolRunner
              key={selected.id}
              tool={selected}
              platformTitle={platformTitles[selected.platform] ?? selected.platform}
            />
          ) : (
            <p className="muted">Choose a tool step to see its input and run it.</p>
          )}
        </div>
      </div>
    </>
  )
}
