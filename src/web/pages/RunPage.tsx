import { useCallback, useEffect, useState } from 'react'
import { agentsApi, type Run } from '../agents-api.ts'
import { approvalsApi, type Approval } from '../approvals-api.ts'
import { ApprovalCard } from '../components/ApprovalCard.tsx'
import { Banner } from '../components/Banner.tsx'
import { Link } from '../components/Link.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { JsonBlock, RunStatusBadge, usePolling } from '../components/RunBits.tsx'
import { TimelineCard } from '../components/TimelineCard.tsx'
import { navigate } from '../router.ts'
import { agentPath, runPath } from '../routes.ts'
import { isLive, isUnfinished } from '../run-filters.ts'
import { formatDuration, formatTime, runDuration, startedByText } from '../run-format.ts'

/** A result this short is shown open; a longer one waits behind its disclosure. */
const SHORT_JSON_LINES = 15

export function RunPage({ id }: { id: string }) {
  const [run, setRun] = useState<Run | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [actionError, setActionError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [triggerTitle, setTriggerTitle] = useState<string | undefined>()
  const [now, setNow] = useState(() => Date.now())
  const [approvals, setApprovals] = useState<Approval[]>([])
  const [decided, setDecided] = useState<string | null>(null)

  const load = useCallback(async () => {
    const r = await agentsApi.run(id)
    setRun(r)
    setNow(Date.now())
    // A run waiting for a person shows what it waits for here, as the inbox does (docs/model-agents.md).
    if (r.status === 'waiting_for_approval') {
      const waiting = await approvalsApi.pendingFor(id).catch(() => [])
      // A card being filled in keeps its state: only a new or finished request changes the list.
      setApprovals((shown) =>
        shown.map((a) => a.id).join() === waiting.map((a) => a.id).join() ? shown : waiting,
      )
    } else setApprovals((shown) => (shown.length ? [] : shown))
    return r
  }, [id])

  useEffect(() => {
    setRun(null)
    setError(null)
    load().then((r) => (document.title = `Run of ${r.agent_name} · Switchyard`), setError)
  }, [load])

  useEffect(() => {
    // A run names its trigger by id; the title is the trigger's own.
    if (!run?.trigger_id) return
    agentsApi.trigger(run.trigger_id).then(
      (t) => setTriggerTitle(t.title),
      () => {},
    )
  }, [run?.trigger_id])

  const waiting = run?.status === 'waiting_for_approval'
  // A run waiting for a person may be decided elsewhere (the inbox, the CLI) or expire: look now and then.
  usePolling(load, !!run && (isLive(run.status) || waiting), waiting ? 5000 : 1500)

  const act = async (what: 'cancel' | 'rerun') => {
    setBusy(true)
    setActionError(null)
    try {
      if (what === 'cancel') setRun(await agentsApi.cancel(id))
      else navigate(runPath((await agentsApi.rerun(id)).id))
    } catch (e) {
      setActionError(e)
    } finally {
      setBusy(false)
    }
  }

  if (!run) {
    return (
      <>
        <h1 tabIndex={-1}>Run</h1>
        {error !== null ? <ProblemMessage error={error} /> : <p className="muted">Loading run…</p>}
      </>
    )
  }

  const timeline = run.timeline ?? []
  return (
    <>
      <p className="breadcrumb">
        <Link to="/runs">Runs</Link> · <Link to={agentPath(run.agent_id, 'runs')}>{run.agent_name}</Link>
      </p>
      <div className="page-header">
        <h1 tabIndex={-1}>
          Run of {run.agent_name} <span className="muted heading-version">version {run.agent_version}</span>
        </h1>
        <div className="actions header-actions">
          {isUnfinished(run.status) && (
            <button type="button" className="button-danger" disabled={busy} onClick={() => act('cancel')}>
              Cancel run
            </button>
          )}
          <button
            type="button"
            disabled={busy}
            onClick={() => act('rerun')}
            title="Runs the agent's current version again with the same inputs"
          >
            Rerun
          </button>
        </div>
      </div>
      {actionError !== null && <ProblemMessage error={actionError} />}
      {decided && (
        <Banner kind="success" title={decided} onDismiss={() => setDecided(null)}>
          <p>The run goes on with your decisions; a denial&apos;s reason is given to the model.</p>
        </Banner>
      )}
      {approvals.map((a) => (
        <ApprovalCard
          key={a.id}
          approval={a}
          onRunPage
          onDecided={(message) => {
            setDecided(message)
            setApprovals((list) => list.filter((x) => x.id !== a.id))
            void load()
          }}
        />
      ))}

      <section className="panel run-header" aria-label="Run">
        <dl className="facts">
          <div>
            <dt>Status</dt>
            <dd data-testid="run-status">
              <RunStatusBadge status={run.status} /> {run.test && <span className="tag">test</span>}
            </dd>
          </div>
          <div>
            <dt>Started by</dt>
            <dd>
              {run.started_by === 'trigger' ? (
                <Link to={agentPath(run.agent_id, 'triggers')}>{startedByText(run, triggerTitle)}</Link>
              ) : (
                startedByText(run, triggerTitle)
              )}
              {run.rerun_of && (
                <>
                  {' '}
                  of <Link to={runPath(run.rerun_of)}>an earlier run</Link>
                </>
              )}
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatTime(run.created_at, now)}</dd>
          </div>
          {run.started_at && (
            <div>
              <dt>Started</dt>
              <dd>{formatTime(run.started_at, now)}</dd>
            </div>
          )}
          {run.finished_at && (
            <div>
              <dt>Finished</dt>
              <dd>{formatTime(run.finished_at, now)}</dd>
            </div>
          )}
          {runDuration(run, now) !== null && (
            <div>
              <dt>Duration</dt>
              <dd>{formatDuration(runDuration(run, now))}</dd>
            </div>
          )}
        </dl>
        <Values label="Inputs" values={run.inputs} />
        {run.event != null && <JsonBlock label="The trigger's event" value={run.event} />}
      </section>

      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Timeline</h2>
        {timeline.length === 0 && (
          <p className="muted">{run.status === 'queued' ? 'Waiting to start…' : 'Nothing ran.'}</p>
        )}
        <ol className="timeline">
          {timeline.map((entry) => (
            <TimelineCard key={entry.seq} entry={entry} now={now} />
          ))}
        </ol>
      </section>

      {!isUnfinished(run.status) && (
        <section
          className={run.status === 'succeeded' ? 'panel run-result' : 'panel run-result run-result-failed'}
          aria-labelledby="result-heading"
          data-testid="run-result"
        >
          <h2 id="result-heading">
            {run.status === 'succeeded'
              ? 'Result'
              : run.status === 'cancelled'
                ? 'Cancelled'
                : 'The run failed'}
          </h2>
          {run.error && <p className="entry-error">{run.error.message}</p>}
          {typeof run.result === 'string' ? (
            // A model agent's answer without an output schema is text: read, not JSON-escaped.
            <blockquote className="model-words" data-testid="run-result-text">
              {run.result}
            </blockquote>
          ) : run.result !== null && run.result !== undefined ? (
            <JsonBlock
              label="Result (JSON)"
              value={run.result}
              open={JSON.stringify(run.result, null, 2).split('\n').length <= SHORT_JSON_LINES}
            />
          ) : (
            run.status === 'succeeded' && <p className="muted">The agent returns no result.</p>
          )}
        </section>
      )}
    </>
  )
}

/** Input variables as name: value lines, long values in a box of their own. */
function Values({ label, values }: { label: string; values: Record<string, unknown> }) {
  const entries = Object.entries(values ?? {})
  return (
    <div className="values">
      <h3>{label}</h3>
      {entries.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <dl className="value-list">
          {entries.map(([k, v]) => (
            <div key={k}>
              <dt>
                <code>{k}</code>
              </dt>
              <dd>{typeof v === 'string' ? v : <code>{JSON.stringify(v)}</code>}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  )
}
