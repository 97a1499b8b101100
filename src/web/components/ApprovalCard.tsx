import { useState, type FormEvent } from 'react'
import { ApiError } from '../api.ts'
import { decisionsOf, routeDecisionErrors, type CallChoice, type Choice } from '../approval-decisions.ts'
import { approvalsApi, type Approval, type ApprovalCall } from '../approvals-api.ts'
import { formatTime } from '../run-format.ts'
import { agentPath, runPath } from '../routes.ts'
import { EffectBadge } from './Badges.tsx'
import { FieldErrorText } from './FieldErrorText.tsx'
import { fieldAria } from './FieldShell.tsx'
import { Link } from './Link.tsx'
import { ProblemMessage } from './ProblemMessage.tsx'
import { JsonBlock } from './RunBits.tsx'

const CHOICES: Array<{ value: Choice; label: string }> = [
  { value: 'approve', label: 'Approve' },
  { value: 'approve_for_run', label: 'Approve this tool for the rest of the run' },
  { value: 'deny', label: 'Deny' },
]

type Call = ApprovalCall & { tool_call_id: string }

/**
 * One approval request (docs/model-agents.md, "Approvals"): each tool call in words with its input,
 * and a decision per call: approve (as asked, or with an edited input the server checks against the
 * step's schema again), approve the tool for the rest of the run, or deny with a reason for the
 * model. Shown in the inbox and on the run's page; the server checks every decision.
 */
export function ApprovalCard({
  approval,
  onDecided,
  onRunPage,
}: {
  approval: Approval
  onDecided: (message: string) => void
  /** On the run's own page, the card does not link back to it. */
  onRunPage?: boolean
}) {
  const calls = approval.calls.filter((c): c is Call => !!c.tool_call_id)
  const callIds = calls.map((c) => c.tool_call_id)
  const [choices, setChoices] = useState<Record<string, CallChoice>>(() =>
    Object.fromEntries(calls.map((c) => [c.tool_call_id, { decision: 'approve', reason: '', edited: null }])),
  )
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const problem = error instanceof ApiError ? error.problem : undefined
  const routed = routeDecisionErrors(problem?.errors, callIds)
  const set = (id: string, patch: Partial<CallChoice>) =>
    setChoices((all) => ({ ...all, [id]: { ...all[id], ...patch } }))

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const { decisions, errors } = decisionsOf(callIds, choices)
    setLocalErrors(errors)
    setError(null)
    if (Object.keys(errors).length > 0) return
    setBusy(true)
    try {
      await approvalsApi.decide(approval.id, decisions)
      const denied = decisions.filter((d) => d.decision === 'deny').length
      const edited = decisions.filter((d) => d.input !== undefined).length
      onDecided(
        `Decided for ${approval.agent_name}: ${decisions.length - denied} approved${
          edited ? ` (${edited} with your edits)` : ''
        }, ${denied} denied`,
      )
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
      noValidate
      data-testid="approval"
      aria-label={`Approval for ${approval.agent_name}`}
    >
      <h2>
        {onRunPage ? (
          'Waiting for your approval'
        ) : (
          <Link to={agentPath(approval.agent_id)}>{approval.agent_name}</Link>
        )}
      </h2>
      <p className="muted">
        {onRunPage ? (
          'The model asked'
        ) : (
          <>
            <Link to={runPath(approval.run_id)}>Its run</Link> asked
          </>
        )}{' '}
        {formatTime(approval.created_at)}; denied if not decided by {formatTime(approval.expires_at)}.
      </p>
      {calls.map((c) => {
        const choice = choices[c.tool_call_id]
        const base = `approval-${c.tool_call_id}`
        const inputErrors = [
          ...(localErrors[c.tool_call_id] ? [localErrors[c.tool_call_id]] : []),
          ...(routed.at[c.tool_call_id] ?? []),
        ]
        return (
          <fieldset key={c.tool_call_id} className="approval-call">
            <legend>{c.words || c.name}</legend>
            <p className="approval-tool">
              {c.effect && <EffectBadge effect={c.effect} />} <code>{c.tool}</code>
              {c.name && <span className="muted"> · the model calls it {c.name}</span>}
            </p>
            <JsonBlock
              label={choice.edited === null ? 'Its input' : 'The model asked for'}
              value={c.input}
              open={choice.edited === null}
            />
            <div className="approval-choices" role="radiogroup" aria-label={`Decision for ${c.name}`}>
              {CHOICES.map((option) => (
                <label key={option.value} className="approval-choice">
                  <input
                    type="radio"
                    name={`decision-${c.tool_call_id}`}
                    value={option.value}
                    checked={choice.decision === option.value}
                    onChange={() => set(c.tool_call_id, { decision: option.value })}
                  />{' '}
                  {option.label}
                </label>
              ))}
            </div>
            {choice.decision === 'deny' ? (
              <div className="field">
                <label htmlFor={`${base}-reason`}>Why (given to the model)</label>
                <input
                  id={`${base}-reason`}
                  type="text"
                  value={choice.reason}
                  onChange={(e) => set(c.tool_call_id, { reason: e.target.value })}
                />
              </div>
            ) : choice.edited === null ? (
              <button
                type="button"
                className="link-button"
                onClick={() => set(c.tool_call_id, { edited: JSON.stringify(c.input ?? {}, null, 2) })}
              >
                Edit the input before approving
              </button>
            ) : (
              <div className="field approval-edit">
                <label htmlFor={`${base}-input`}>The input it runs with (JSON)</label>
                <textarea
                  {...fieldAria(`${base}-input`, inputErrors, true)}
                  className="mono"
                  rows={Math.min(14, Math.max(4, choice.edited.split('\n').length + 1))}
                  spellCheck={false}
                  value={choice.edited}
                  onChange={(e) => set(c.tool_call_id, { edited: e.target.value })}
                />
                <p className="help" id={`${base}-input-help`}>
                  Checked against the step&apos;s schema again before it runs; the run&apos;s timeline shows
                  the input it ran with.{' '}
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => {
                      set(c.tool_call_id, { edited: null })
                      setLocalErrors(({ [c.tool_call_id]: _, ...rest }) => rest)
                    }}
                  >
                    Use the model&apos;s input
                  </button>
                </p>
                <FieldErrorText id={`${base}-input-error`} messages={inputErrors} />
              </div>
            )}
          </fieldset>
        )
      })}
      {error !== null && (
        <ProblemMessage
          error={error}
          otherFieldErrors={routed.other}
          detail={
            Object.keys(routed.at).length > 0 && routed.other.length === 0
              ? 'Check the inputs marked above.'
              : undefined
          }
        />
      )}
      <div className="actions">
        <button type="submit" className="button-primary" disabled={busy}>
          {busy ? 'Sending…' : 'Send decisions'}
        </button>
      </div>
    </form>
  )
}
