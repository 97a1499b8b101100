import { describe, expect, it } from 'vitest'
import { decisionsOf, routeDecisionErrors, type CallChoice } from './approval-decisions.ts'

const pick = (decision: CallChoice['decision'], patch: Partial<CallChoice> = {}): CallChoice => ({
  decision,
  reason: '',
  edited: null,
  ...patch,
})

describe("the approval card's decisions", () => {
  it('sends an edited input with an approval, and never with a denial', () => {
    const { decisions, errors } = decisionsOf(['a', 'b', 'c', 'd'], {
      a: pick('approve', { edited: '{"ticket_id": 7}' }),
      b: pick('approve_for_run', { edited: '{"status": "open"}' }),
      c: pick('deny', { reason: ' we keep tickets ', edited: '{"ticket_id": 9}' }),
      d: pick('approve'),
    })
    expect(errors).toEqual({})
    expect(decisions).toEqual([
      { tool_call_id: 'a', decision: 'approve', input: { ticket_id: 7 } },
      { tool_call_id: 'b', decision: 'approve_for_run', input: { status: 'open' } },
      { tool_call_id: 'c', decision: 'deny', reason: 'we keep tickets' },
      { tool_call_id: 'd', decision: 'approve' },
    ])
  })

  it.each([
    ['{ "ticket_id": ', 'Not valid JSON'],
    ['[7]', 'JSON object'],
    ['null', 'JSON object'],
    ['"7"', 'JSON object'],
  ])('names the call whose edited input %j is not a JSON object', (text, message) => {
    const { errors } = decisionsOf(['a', 'b'], { a: pick('approve'), b: pick('approve', { edited: text }) })
    expect(Object.keys(errors)).toEqual(['b'])
    expect(errors.b).toContain(message)
  })

  it("puts the server's schema errors at the call whose input they name", () => {
    const { at, other } = routeDecisionErrors(
      [
        { field: 'decisions[1].input.ticket_id', message: 'expected number, received string' },
        { field: 'decisions[1].input', message: 'an edited input goes with an approval, not a denial' },
        { field: 'decisions[0].tool_call_id', message: 'this call is already decided' },
        { field: 'decisions[5].input.x', message: 'no such call' },
      ],
      ['a', 'b'],
    )
    expect(at).toEqual({
      b: [
        'ticket_id: expected number, received string',
        'an edited input goes with an approval, not a denial',
      ],
    })
    expect(other.map((e) => e.field)).toEqual(['decisions[0].tool_call_id', 'decisions[5].input.x'])
  })
})
