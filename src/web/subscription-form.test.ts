import { describe, expect, it } from 'vitest'
import { coerceValues, fieldsFromSchema } from './schema-form.ts'
import { formValuesOf, routeMappingErrors, verdictView } from './subscription-form.ts'

describe('formValuesOf', () => {
  it('gives the config form the values that coerce back to the stored config', () => {
    const fields = fieldsFromSchema({
      type: 'object',
      properties: {
        idBoard: { type: 'string' },
        lists: { type: 'array', items: { type: 'string' } },
        mine: { type: 'boolean' },
        kind: { enum: ['a', 'b'] },
        n: { type: 'integer' },
        extra: { type: 'object' },
      },
      required: ['idBoard', 'mine'],
    })
    const stored = { idBoard: 'b1', lists: ['l1', 'l2'], mine: true, kind: 'b', n: 3, extra: { x: 1 } }
    const values = formValuesOf(fields, stored)
    expect(values).toMatchObject({ idBoard: 'b1', lists: 'l1, l2', mine: true, kind: '"b"', n: '3' })
    expect(coerceValues(fields, values)).toEqual({ input: stored, errors: {} })
  })
})

describe('routeMappingErrors', () => {
  it('puts errors on the input variable they name', () => {
    const { byVariable, other } = routeMappingErrors(
      [
        { field: 'mapping.subject', message: 'Bad template' },
        { field: 'inputs.priority', message: 'Expected number' },
        { field: 'inputs[priority]', message: 'Again' },
        { field: 'subject', message: 'Bare' },
        { field: 'inputs', message: 'Missing required: subject' },
        { field: 'event.card', message: 'Other' },
      ],
      ['subject', 'priority'],
    )
    expect(byVariable).toEqual({ subject: ['Bad template', 'Bare'], priority: ['Expected number', 'Again'] })
    expect(other.map((e) => e.field)).toEqual(['inputs', 'event.card'])
  })
})

describe('verdictView', () => {
  const base: Parameters<typeof verdictView>[0] = {
    verdict: 'healthy',
    reasons: [],
    last_event_at: null,
    polled: false,
  }
  const now = Date.parse('2026-01-01T12:00:00Z')

  it("shows the server's verdict and reasons as they are, weightiest first", () => {
    const reasons: (typeof base)['reasons'] = [
      { code: 'deliveries_refused', severity: 'failing', message: '4 deliveries from Vercel were refused' },
      { code: 'webhook_check_failed', severity: 'warning', message: 'a check failed' },
    ]
    expect(verdictView({ ...base, verdict: 'failing', reasons }, 'Vercel', now)).toEqual({
      tone: 'error',
      title: 'Failing',
      lines: ['4 deliveries from Vercel were refused', 'a check failed'],
    })
    expect(verdictView({ ...base, verdict: 'paused', reasons: reasons.slice(1) }, 'Trello', now).tone).toBe(
      'warning',
    )
  })

  it('says what a healthy trigger is doing from the facts REST gives', () => {
    expect(verdictView({ ...base, last_event_at: '2026-01-01T11:58:00Z' }, 'Trello', now).lines[0]).toMatch(
      /^Working: the last event arrived 2 min/,
    )
    expect(verdictView({ ...base, polled: true }, 'Trello', now).lines[0]).toMatch(/asks Trello/)
    expect(verdictView(base, 'Trello', now)).toMatchObject({ tone: 'ok', title: 'Healthy' })
  })
})
