import { useEffect, useState, type FormEvent } from 'react'
import { approvalsApi, type Approval, type ApprovalCall, type Decision } from '../approvals-api.ts'
import { Banner } from '../components/Banner.tsx'
import { Link } from '../components/Link.tsx'
import { ProblemMessage } from '../components/ProblemMessage.tsx'
import { JsonBlock, usePolling } from '../components/RunBits.tsx'
import { formatTime } from '../run-format.ts'
import { agentPath, runPath } from '../routes.ts'

type Choice = Decision['decision']

const CHOICES: Array<{ value: Choice; label: string }> = [
  { value: 'approve', label: 'Approve' },
  { value: 'approve_for_run', label: 'Approve this tool for the rest of the run' },
  { value: 'deny', label: 'Deny' },
]

/**
 * The approvals inbox (docs/model-agents.md, "Approvals"): each model run waiting for a person, its
 * tool calls in words with their inputs, and a decision per call. The server checks every decision;
 * nothing here can approve what the server would not.
 */
export function ApprovalsPage() {
  const [approvals, setApprovals] = useState<Approval[] | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [done, setDone] = useState<string | null>(null)
  const load = () =>
    approvalsApi.pending().then(
      (list) => {
        setApprovals(list)
        setLoadError(null)
      },
      (e) => setLoadError(e),
    )
  useEffect(() => {
    document.title = 'Approvals · Switchyard'
    void load()
  }, [])
  // New requests arrive while the page is open (a trigger starts a run that asks).
  usePolling(load, true, 5000)

  return (
    <>
      <div className="page-header">
        <h1 tabIndex={-1}>Approvals</h1>
      </div>
      <p className="muted">
        Model agents wait here before a tool call that needs a person: destructive steps always, and writes
        their author marked. A request not decided by its deadline is denied.
      </p>
      {done && (
        <Banner kind="success" title={done} onDismiss={() => setDone(null)}>
          <p>The run goes on with your decisions; a denial&apos;s reason is given to the model.</p>
        </Banner>
      )}
      {loadError !== null && <ProblemMessage error={loadError} />}
      {approvals === null && loadError === null && <p className="muted">Loading…</p>}
      {approvals?.length === 0 && <p className="empty">Nothing is waiting for you.</p>}
      {approvals?.map((a) => (
        <ApprovalCard
          key={a.id}
          approval={a}
          onDecided={(message) => {
            setDone(message)
            setApprovals((list) => list?.filter((x) => x.id !== a.id) ?? null)
          }}
        />
      ))}
    </>
  )
}

function ApprovalCard({ approval, onDecided }: { approval: Approval; onDecided: (message: string) => void }) {
  const calls = approval.calls.filter((c): c is ApprovalCall & { tool_call_id: string } => !!c.tool_call_id)
  const [choices, setChoices] = useState<Record<string, Choice>>(() =>
    Object.fromEntries(calls.map((c) => [c.tool_call_id, 'approve' as Choice])),
  )
  const [reasons, setReasons] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      await approvalsApi.decide(
        approval.id,
        calls.map((c) => {
          const decision = choices[c.tool_call_id] ?? 'approve'
          const reason = reasons[c.tool_call_id]?.trim()
          return decision === 'deny' && reason
            ? { tool_call_id: c.tool_call_id, decision, reason }
            : { tool_call_id: c.tool_call_id, decision }
        }),
      )
      const denied = calls.filter((c) => choices[c.tool_call_id] === 'deny').length
      onDecided(`Decided for ${approval.agent_name}: ${calls.length - denied} approved, ${denied} denied`)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form
      className="panel approval"
      onSubmit={submit}
      data-testid="approval"
      aria-label={`Approval for ${approval.agent_name}`}
    >
      <h2>
        <Link to={agentPath(approval.agent_id)}>{approval.agent_name}</Link>
      </h2>
      <p className="muted">
        <Link to={runPath(approval.run_id)}>Its run</Link> asked {formatTime(approval.created_at)}; denied if
        not decided by {formatTime(approval.expires_at)}.
      </p>
      {calls.map((c) => (
        <fieldset key={c.tool_call_id} className="approval-call">
          <legend>
            {c.words || c.name}{' '}
            <span className="muted">
              ({c.tool}, {c.effect})
            </span>
          </legend>
          <JsonBlock label="Its input" value={c.input} open />
          <div className="approval-choices" role="radiogroup" aria-label={`Decision for ${c.name}`}>
            {CHOICES.map((choice) => (
              <label key={choice.value} className="approval-choice">
                <input
                  type="radio"
                  name={`decision-${c.tool_call_id}`}
                  value={choice.value}
                  checked={choices[c.tool_call_id] === choice.value}
                  onChange={() => setChoices((all) => ({ ...all, [c.tool_call_id]: choice.value }))}
                />{' '}
                {choice.label}
              </label>
            ))}
          </div>
          {choices[c.tool_call_id] === 'deny' && (
            <div className="field">
              <label htmlFor={`reason-${c.tool_call_id}`}>Why (given to the model)</label>
              <input
                id={`reason-${c.tool_call_id}`}
                type="text"
                value={reasons[c.tool_call_id] ?? ''}
                onChange={(e) => setReasons((all) => ({ ...all, [c.tool_call_id]: e.target.value }))}
              />
            </div>
          )}
        </fieldset>
      ))}
      {error !== null && <ProblemMessage error={error} />}
      <div className="actions">
        <button type="submit" className="button-primary" disabled={busy}>
          {busy ? 'Sending…' : 'Send decisions'}
        </button>
      </div>
    </form>
  )
}
