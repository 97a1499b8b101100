import { describe, expect, it } from 'vitest'
import { approvalNotes, standingNotes, type TraceEntry } from './approval-note.ts'

const ada = { by: 'u_ada', by_name: 'Ada', by_email: 'ada@example.com' }
const model = (key: string, calls: Array<{ id: string; name: string }>): TraceEntry => ({
  key,
  kind: 'model_call',
  output: { calls },
})
const tool = (key: string): TraceEntry => ({ key, kind: 'tool_call', output: {} })

describe('the trace of a standing approval', () => {
  const rows = [
    {
      id: 'ap_1',
      status: 'decided',
      calls: [{ tool_call_id: 'c1', input: { id: 1 } }],
      decisions: {
        c1: {
          decision: 'approve_for_run',
          input: { id: 9 },
          reason: 'fine',
          at: '2026-11-27T10:00:00Z',
          ...ada,
        },
      },
      expires_at: new Date('2026-11-28T10:00:00Z'),
    },
  ]
  const entries = [
    model('model#1', [{ id: 'c1', name: 'delete_ticket' }]),
    tool('c1'),
    model('model#2', [
      { id: 'c2', name: 'delete_ticket' },
      { id: 'c3', name: 'read_ticket' },
    ]),
    tool('c2'),
    tool('c3'),
  ]
  const notes = approvalNotes(rows)
  const standing = standingNotes(entries, notes)

  it('names who gave the standing approval and when on each call that ran under it', () => {
    expect(standing.get('c2')).toEqual({
      approval_id: 'ap_1',
      decision: 'approve_for_run',
      by: { id: 'u_ada', name: 'Ada', email: 'ada@example.com' },
      at: '2026-11-27T10:00:00Z',
      reason: null,
      edited: false,
      standing_from: 'c1',
    })
  })

  it('gives no note to calls of other tools, nor a second one to the call it was given on', () => {
    expect(standing.has('c3')).toBe(false)
    expect(standing.has('c1')).toBe(false)
  })
})
