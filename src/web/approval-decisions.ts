// The approvals card's decisions as it sends them (REST: POST /v1/approvals/{id}/decide), and the
// server's field errors put back at the call they name; free of React so it can be unit tested.
import type { FieldError } from './api.ts'
import { normalizePath } from './agent-errors.ts'
import type { Decision } from './approvals-api.ts'

export type Choice = Decision['decision']

export interface CallChoice {
  decision: Choice
  reason: string
  /** The edited input as JSON text, or null when the call runs with the model's own input. */
  edited: string | null
}

/** The decisions to send, one per call in order, or per call the edited text that is not a JSON object. */
export function decisionsOf(
  callIds: readonly string[],
  choices: Record<string, CallChoice>,
): { decisions: Decision[]; errors: Record<string, string> } {
  const errors: Record<string, string> = {}
  const decisions = callIds.map((id): Decision => {
    const c = choices[id] ?? { decision: 'approve', reason: '', edited: null }
    if (c.decision === 'deny') {
      const reason = c.reason.trim()
      return reason ? { tool_call_id: id, decision: 'deny', reason } : { tool_call_id: id, decision: 'deny' }
    }
    if (c.edited === null) return { tool_call_id: id, decision: c.decision }
    try {
      const input: unknown = JSON.parse(c.edited)
      if (typeof input !== 'object' || input === null || Array.isArray(input))
        errors[id] = 'The input is a JSON object, { … }.'
      else return { tool_call_id: id, decision: c.decision, input: input as Record<string, unknown> }
    } catch (err) {
      errors[id] = `Not valid JSON: ${err instanceof Error ? err.message : String(err)}`
    }
    return { tool_call_id: id, decision: c.decision }
  })
  return { decisions, errors }
}

/**
 * The server names a decision by its place in the list sent (`decisions[0].input.ticket_id`): the
 * messages for each call's edited input, by call id, the field named in front; the rest stay whole.
 */
export function routeDecisionErrors(
  errors: readonly FieldError[] | undefined,
  callIds: readonly string[],
): { at: Record<string, string[]>; other: FieldError[] } {
  const at: Record<string, string[]> = {}
  const other: FieldError[] = []
  for (const e of errors ?? []) {
    const seg = normalizePath(e.field).split('.')
    const id = seg[0] === 'decisions' ? callIds[Number(seg[1])] : undefined
    if (id === undefined || seg[2] !== 'input') {
      other.push(e)
      continue
    }
    const field = seg.slice(3).join('.')
    ;(at[id] ??= []).push(field ? `${field}: ${e.message}` : e.message)
  }
  return { at, other }
}
