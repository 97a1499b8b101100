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
  /**
   * Set when no request asked about this call because an earlier call of the same tool was
   * approved "for the rest of the run": the note is that standing approval, and this names the
   * call it was given on.
   */
  standing_from?: string
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

/** A timeline entry as far as standing approvals need it. */
export interface TraceEntry {
  key: string
  kind: string
  output: unknown
}

/**
 * Notes for the tool calls that ran under a standing "approve for the rest of the run": no request
 * asked about them, so `approvalNotes` has none. Approvals are fixed when the run starts
 * (docs/model-agents.md, "Approvals"), so a call of a tool with a standing approval that has no note
 * of its own ran under the first such approval made before it.
 */
export function standingNotes(
  entries: readonly TraceEntry[],
  notes: ReadonlyMap<string, ApprovalNote>,
): Map<string, ApprovalNote> {
  const nameOf = new Map<string, string>()
  for (const e of entries)
    if (e.kind === 'model_call') {
      const calls = (e.output as { calls?: Array<{ id: string; name: string }> } | null)?.calls
      for (const c of Array.isArray(calls) ? calls : []) nameOf.set(c.id, c.name)
    }
  const standing = new Map<string, ApprovalNote & { from: string }>()
  const found = new Map<string, ApprovalNote>()
  for (const e of entries) {
    if (e.kind !== 'tool_call') continue
    const name = nameOf.get(e.key)
    if (!name) continue
    const own = notes.get(e.key)
    if (own) {
      if (own.decision === 'approve_for_run' && !standing.has(name))
        standing.set(name, { ...own, from: e.key })
      continue
    }
    const given = standing.get(name)
    if (!given) continue
    // Who gave it and when; the reason and edited input were that call's own.
    found.set(e.key, {
      approval_id: given.approval_id,
      decision: 'approve_for_run',
      by: given.by,
      at: given.at,
      reason: null,
      edited: false,
      standing_from: given.from,
    })
  }
  return found
}
