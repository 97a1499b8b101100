import type { Schema } from '../api-shapes.ts'
import { formatTime } from '../run-format.ts'

type ApprovalNote = Schema<'ApprovalNote'>

const DECIDED: Record<string, string> = {
  approve: 'Approved',
  approve_for_run: 'Approved for the rest of the run',
  deny: 'Denied',
}

/**
 * Who let a model's tool call run, or stopped it, and when (docs/model-agents.md, "Approvals"):
 * the trace names the person, not just that someone did.
 */
export function ApprovalNoteLine({ note, now }: { note: ApprovalNote; now: number }) {
  if (note.decision === 'expired' || !note.by)
    return (
      <p className="approval-note" data-testid="approval-note">
        Nobody decided by {formatTime(note.at, now)}, so it counted as denied.
      </p>
    )
  const who = note.by.name || note.by.email || note.by.id
  if (note.standing_from)
    return (
      <p className="approval-note" data-testid="approval-note">
        Ran under the standing approval for the rest of the run that <strong>{who}</strong>
        {note.by.name && note.by.email ? <span className="muted"> ({note.by.email})</span> : null} gave at{' '}
        {formatTime(note.at, now)}.
      </p>
    )
  return (
    <p className="approval-note" data-testid="approval-note">
      {DECIDED[note.decision] ?? note.decision}
      {note.edited ? ' with edited input' : ''} by <strong>{who}</strong>
      {note.by.name && note.by.email ? <span className="muted"> ({note.by.email})</span> : null} at{' '}
      {formatTime(note.at, now)}
      {note.reason ? <>: “{note.reason}”</> : '.'}
    </p>
  )
}
