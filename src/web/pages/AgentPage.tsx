import { useEffect, useState } from 'react'
import { agentsApi, type Agent } from '../agents-api.ts'
import { AgentOverview } from '../components/AgentOverview.tsx'
import { Banner } from '../components/Banner.tsx'
import { ConfirmButton } from '../components/ConfirmButton.tsx'
import { Link } from '../components/Link.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { RunNowForm } from '../components/RunNowForm.tsx'
import { RunsList } from '../components/RunsList.tsx'
import { TriggersTab } from '../components/TriggersTab.tsx'
import { navigate } from '../router.ts'
import { agentEditPath, agentPath, type AgentTab } from '../routes.ts'

const TABS: ReadonlyArray<{ tab: AgentTab; label: string }> = [
  { tab: 'overview', label: 'Overview' },
  { tab: 'triggers', label: 'Triggers' },
  { tab: 'runs', label: 'Runs' },
]

export function AgentPage({ id, tab, search }: { id: string; tab: AgentTab; search: string }) {
  const params = new URLSearchParams(search)
  const saved = params.get('saved')
  const versionParam = Number(params.get('version'))
  const viewVersion = Number.isInteger(versionParam) && versionParam > 0 ? versionParam : undefined
  const [agent, setAgent] = useState<Agent | null>(null)
  const [current, setCurrent] = useState<Agent | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [running, setRunning] = useState(false)
  const [deleteError, setDeleteError] = useState<unknown>(null)

  useEffect(() => {
    let live = true
    agentsApi.get(id).then(
      (a) => {
        if (!live) return
        setCurrent(a)
        document.title = `${a.name} · Switchyard`
      },
      (e) => live && setError(e),
    )
    return () => {
      live = false
    }
  }, [id])

  useEffect(() => {
    if (!viewVersion || viewVersion === current?.version) {
      setAgent(current)
      return
    }
    let live = true
    agentsApi.get(id, viewVersion).then(
      (a) => live && setAgent(a),
      (e) => live && setError(e),
    )
    return () => {
      live = false
    }
  }, [id, viewVersion, current])

  const remove = async () => {
    setDeleteError(null)
    try {
      await agentsApi.remove(id)
      navigate('/agents')
    } catch (e) {
      setDeleteError(e)
    }
  }

  if (error !== null && !current) {
    return (
      <>
        <h1 tabIndex={-1}>Agent</h1>
        <ProblemMessage error={error} />
        <p>
          <Link to="/agents">All agents</Link>
        </p>
      </>
    )
  }
  if (!current) return <p className="muted">Loading agent…</p>

  return (
    <>
      <p className="breadcrumb">
        <Link to="/agents">Agents</Link>
      </p>
      <div className="page-header">
        <h1 tabIndex={-1}>{current.name}</h1>
        <div className="actions header-actions">
          <button
            type="button"
            className="button-primary"
            aria-expanded={running}
            onClick={() => setRunning((r) => !r)}
          >
            Run now
          </button>
          <Link className="button-secondary" to={agentEditPath(id)}>
            Edit
          </Link>
          <ConfirmButton
            question={`Delete “${current.name}”? Its triggers stop, and its runs stay listed.`}
            confirmLabel="Delete agent"
            onConfirm={remove}
            danger
          >
            Delete
          </ConfirmButton>
        </div>
      </div>
      {current.description && <p className="agent-description page-lead">{current.description}</p>}
      {deleteError !== null && <ProblemMessage error={deleteError} />}
      {saved && (
        <Banner
          kind="success"
          title={`Saved as version ${saved}.`}
          onDismiss={() => navigate(agentPath(id, tab), { replace: true })}
        />
      )}
      {running && <RunNowForm agent={current} onCancel={() => setRunning(false)} />}

      <nav className="tabs" aria-label="Agent">
        {TABS.map((t) => (
          <Link key={t.tab} to={agentPath(id, t.tab)} aria-current={t.tab === tab ? 'page' : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>

      {tab === 'overview' && agent && <AgentOverview agent={agent} current={current} />}
      {tab === 'triggers' && <TriggersTab agent={current} />}
      {tab === 'runs' && <RunsList fixedAgent={current} search={search} path={agentPath(id, 'runs')} />}
    </>
  )
}
