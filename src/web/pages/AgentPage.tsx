import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { ApiError } from '../api.ts'
import { agentsApi, type Agent, type AgentVersion, type Subscription } from '../agents-api.ts'
import { schemaOfVariables } from '../agent-form.ts'
import { SecretOnce } from '../components/AgentFormParts.tsx'
import { Banner } from '../components/Banner.tsx'
import { ConfirmButton } from '../components/ConfirmButton.tsx'
import { Link } from '../components/Link.tsx'
import { FormProblem, ProblemMessage } from '../components/ProblemMessage.tsx'
import { RunStatusBadge } from '../components/RunBits.tsx'
import { RunsList } from '../components/RunsList.tsx'
import { SchemaForm } from '../components/SchemaForm.tsx'
import { TriggersTab } from '../components/TriggersTab.tsx'
import { groupFieldErrors } from '../field-errors.ts'
import { navigate } from '../router.ts'
import { agentEditPath, agentPath, runPath, type AgentTab } from '../routes.ts'
import { coerceValues, fieldsFromSchema, humanize, initialValues, type FormValues } from '../schema-form.ts'
import { formatTime } from '../run-format.ts'
import { withQuery } from '../url-state.ts'

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
          <button type="button" className="button-primary" aria-expanded={running} onClick={() => setRunning((r) => !r)}>
            Run now
          </button>
          <Link className="button-secondary" to={agentEditPath(id)}>
            Edit
          </Link>
          <ConfirmButton question={`Delete “${current.name}”? Its triggers stop, and its runs stay listed.`} confirmLabel="Delete agent" onConfirm={remove} danger>
            Delete
          </ConfirmButton>
        </div>
      </div>
      {current.description && <p className="agent-description page-lead">{current.description}</p>}
      {deleteError !== null && <ProblemMessage error={deleteError} />}
      {saved && (
        <Banner kind="success" title={`Saved as version ${saved}.`} onDismiss={() => navigate(agentPath(id, tab), { replace: true })} />
      )}
      {running && <RunNowForm agent={current} onCancel={() => setRunning(false)} />}

      <nav className="tabs" aria-label="Agent">
        {TABS.map((t) => (
          <Link key={t.tab} to={agentPath(id, t.tab)} aria-current={t.tab === tab ? 'page' : undefined}>
            {t.label}
          </Link>
        ))}
      </nav>

      {tab === 'overview' && agent && <Overview agent={agent} current={current} />}
      {tab === 'triggers' && <TriggersTab agent={current} />}
      {tab === 'runs' && <RunsList fixedAgent={current} search={search} path={agentPath(id, 'runs')} />}
    </>
  )
}

/** The form for the agent's input variables; starting the run goes to its page. */
function RunNowForm({ agent, onCancel }: { agent: Agent; onCancel: () => void }) {
  const fields = useMemo(() => fieldsFromSchema(schemaOfVariables(agent.inputs)), [agent.inputs])
  const [values, setValues] = useState<FormValues>(() => initialValues(fields))
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const problem = error instanceof ApiError ? error.problem : undefined
  const grouped = groupFieldErrors(problem?.errors, 'inputs', fields.map((f) => f.name))
  const errors: Record<string, string[]> = { ...grouped.byField }
  for (const [k, m] of Object.entries(localErrors)) errors[k] = [m]

  const start = async (e: FormEvent) => {
    e.preventDefault()
    const { input, errors: local } = coerceValues(fields, values)
    // The server takes an empty text as a value; a person leaving a required input empty meant to fill it.
    for (const f of fields) if (f.required && typeof values[f.name] === 'string' && (values[f.name] as string).trim() === '') local[f.name] ??= 'Required: give a value.'
    setLocalErrors(local)
    if (Object.keys(local).length > 0) return
    setBusy(true)
    setError(null)
    try {
      const run = await agentsApi.start(agent.id, input)
      navigate(runPath(run.id))
    } catch (err) {
      setError(err)
      setBusy(false)
    }
  }

  return (
    <section className="panel run-now" aria-labelledby="run-now-heading">
      <h2 id="run-now-heading">Run {agent.name}</h2>
      <form onSubmit={start} noValidate>
        <SchemaForm formId="run-now" fields={fields} values={values} onChange={(name, value) => setValues((v) => ({ ...v, [name]: value }))} errors={errors} disabled={busy} />
        {fields.length === 0 && <p className="help">This agent takes no inputs.</p>}
        <FormProblem error={error} hasFieldErrors={Object.keys(grouped.byField).length > 0} otherFieldErrors={grouped.other} />
        <div className="actions">
          <button type="submit" className="button-primary" disabled={busy}>
            {busy ? 'Starting…' : 'Start run'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  )
}

const TYPE_WORDS: Record<string, string> = { string: 'text', number: 'number', boolean: 'yes / no', object: 'object', array: 'list' }

function Overview({ agent, current }: { agent: Agent; current: Agent }) {
  const [versions, setVersions] = useState<AgentVersion[] | null>(null)
  useEffect(() => {
    agentsApi.versions(current.id).then(setVersions, () => setVersions([]))
  }, [current.id, current.version])
  const old = agent.version !== current.version

  return (
    <div className="overview-layout">
      <section className="panel overview-definition" aria-labelledby="definition-heading">
        <h2 id="definition-heading">
          Version {agent.version}
          {old ? <span className="muted"> (an earlier version; the agent runs version {current.version})</span> : <span className="muted"> (current)</span>}
        </h2>
        <h3>Input variables</h3>
        {agent.inputs.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <ul className="plain-list">
            {agent.inputs.map((v) => (
              <li key={v.name}>
                <code>{v.name}</code> <span className="muted">{TYPE_WORDS[v.type] ?? v.type}{v.required ? ', required' : ', optional'}</span>
                {v.description && <span> · {v.description}</span>}
              </li>
            ))}
          </ul>
        )}
        {agent.kind === 'external' ? (
          <>
            <h3>External service</h3>
            <p className="wrap-anywhere">
              Each run is sent to <code>{agent.external?.url}</code>.
            </p>
            {!old && <NewSigningSecret agentId={agent.id} />}
          </>
        ) : (
          <>
            <h3>Steps</h3>
            {(agent.steps ?? []).length === 0 && <p className="muted">No steps.</p>}
            <ol className="overview-steps">
              {(agent.steps ?? []).map((s) => (
                <li key={s.key}>
                  <span className="item-title">{s.tool_title ?? s.tool}</span> <span className="muted">on {s.integration_name ?? 'an integration'}</span> <code className="step-key">{s.key}</code>
                  {Object.keys(s.input ?? {}).length > 0 && (
                    <ul className="step-input-summary">
                      {Object.entries(s.input).map(([field, value]) => (
                        <li key={field}>
                          <span className="muted">{humanize(field)}:</span> <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>
                        </li>
                      ))}
                    </ul>
                  )}
                  {s.condition && (
                    <p className="help">
                      Only when <code>{s.condition}</code>
                    </p>
                  )}
                  {s.on_failure === 'continue' && <p className="help">Goes on when it fails.</p>}
                </li>
              ))}
            </ol>
            {agent.output && Object.keys(agent.output).length > 0 && (
              <>
                <h3>Result</h3>
                <ul className="plain-list">
                  {Object.entries(agent.output).map(([name, template]) => (
                    <li key={name} className="wrap-anywhere">
                      <code>{name}</code> ← <code>{template}</code>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        )}
      </section>
      <div className="overview-side">
        <OverviewTriggers agentId={current.id} />
        <section className="panel overview-versions" aria-labelledby="versions-heading">
          <h2 id="versions-heading">Versions</h2>
          {versions === null && <p className="muted">Loading…</p>}
          {versions && (
            <ul className="plain-list">
              {versions.map((v) => (
                <li key={v.version}>
                  {v.version === agent.version ? (
                    <strong aria-current="true">Version {v.version}</strong>
                  ) : (
                    <Link to={v.version === current.version ? agentPath(current.id) : withQuery(agentPath(current.id), { version: String(v.version) })}>Version {v.version}</Link>
                  )}{' '}
                  <span className="muted">{formatTime(v.created_at)}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </div>
  )
}

/** The agent's triggers at a glance; the Triggers tab has the rest. */
function OverviewTriggers({ agentId }: { agentId: string }) {
  const [subs, setSubs] = useState<Subscription[] | null>(null)
  useEffect(() => {
    agentsApi.subscriptions(agentId).then(setSubs, () => setSubs([]))
  }, [agentId])
  return (
    <section className="panel" aria-labelledby="overview-triggers-heading">
      <h2 id="overview-triggers-heading">Triggers</h2>
      {subs === null && <p className="muted">Loading…</p>}
      {subs?.length === 0 && <p className="muted">None: it runs when started by hand or over the API.</p>}
      {subs && subs.length > 0 && (
        <ul className="plain-list">
          {subs.map((s) => (
            <li key={s.id}>
              {s.trigger_title} <span className="muted">on {s.integration_name}</span> <RunStatusBadge status={s.status} />
            </li>
          ))}
        </ul>
      )}
      <Link to={agentPath(agentId, 'triggers')}>{subs && subs.length > 0 ? 'Manage triggers' : 'Add a trigger'}</Link>
    </section>
  )
}

/** The signing secret is shown once, when made: a lost one is replaced, never shown again. */
function NewSigningSecret({ agentId }: { agentId: string }) {
  const [secret, setSecret] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const rotate = async () => {
    setError(null)
    try {
      setSecret(await agentsApi.rotateSecret(agentId))
    } catch (e) {
      setError(e)
    }
  }
  return (
    <div className="signing-secret">
      {secret ? (
        <SecretOnce secret={secret} />
      ) : (
        <ConfirmButton question="Make a new signing secret? Your service must switch to it: deliveries are signed with the new one at once." confirmLabel="Make a new secret" onConfirm={rotate}>
          New signing secret
        </ConfirmButton>
      )}
      {error !== null && <ProblemMessage error={error} />}
    </div>
  )
}
