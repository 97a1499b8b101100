// Who let a model's tool call run, or stopped it (docs/model-agents.md, "Approvals"), as the run's
// timeline shows it. The decisions are stored on the approval request (core/models/approvals.ts);
// this reads them back for each tool call's entry.
import type { Decision } from '../models/approvals.ts'

/** A person as a decision names them, kept as they were when they decided. */
export interface Decider {
  id: string
  name: string | null
  email: string | null
}

export interface ApprovalNote {
  approval_id: string
  /** `expired`: nobody decided in time, so the call counted as denied. */
  decision: 'approve' | 'approve_for_run' | 'deny' | 'expired'
  /** Null when the request expired undecided. */
  by: Decider | null
  /** When it was decided, or when the request expired. */
  at: string
  reason: string | null
  /** Approved with edited input: the entry's input is what ran, this is what the model asked for. */
  edited: boolean
  model_input?: unknown
}

/** A stored approval request as far as the trace needs it. */
export interface ApprovalRow {
  id: string
  status: string
  calls: unknown
  decisions: unknown
  expires_at: Date
}

/** Each decided or expired call of the run's requests, by the model's tool-call id. */
export function approvalNotes(rows: readonly ApprovalRow[], now = Date.now()): Map<string, ApprovalNote> {
  const notes = new Map<string, ApprovalNote>()
  for (const row of rows) {
    const calls = (Array.isArray(row.calls) ? row.calls : []) as Array<{
      tool_call_id: string
      input: unknown
    }>
    const decisions = (row.decisions ?? {}) as Record<string, Decision>
    const expired = row.status === 'expired' || (row.status === 'pending' && row.expires_at.getTime() <= now)
    for (const call of calls) {
      const d = decisions[call.tool_call_id]
      if (d) {
        const edited = d.input !== undefined
        notes.set(call.tool_call_id, {
          approval_id: row.id,
          decision: d.decision,
          by: { id: d.by, name: d.by_name ?? null, email: d.by_email ?? null },
          at: d.at,
          reason: d.reason ?? null,
          edited,
          ...(edited ? { model_input: call.input } : {}),
        })
      } else if (expired)
        notes.set(call.tool_call_id, {
          approval_id: row.id,
          decision: 'expired',
          by: null,
          at: row.expires_at.toISOString(),
          reason: null,
          edited: false,
        })
    }
  }
  return notes
}
