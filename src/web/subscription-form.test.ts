import { describe, expect, it } from 'vitest'
import type { SubscriptionHealth } from './agents-api.ts'
import { coerceValues, fieldsFromSchema } from './schema-form.ts'
import { formValuesOf, healthVerdict, routeMappingErrors } from './subscription-form.ts'

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

describe('healthVerdict', () => {
  const healthy: SubscriptionHealth = {
    status: 'active',
    paused_reason: null,
    verdict: 'healthy',
    reasons: [],
    integration: { id: 'i', name: 'Ada', status: 'active', connected: true },
    webhooks: [
      {
        id: 'wh_1',
        model_key: 'board:b1',
        address: 'https://switchyard.test/hooks/t1',
        remote_id: 'w1',
        managed: true,
        status: 'active',
        present: true,
        last_error: null,
      },
    ],
    last_event_at: null,
    last_error: null,
    last_error_at: null,
    polled: false,
    next_poll_at: null,
    deliveries: { recent: 0, counts: {}, refused: null, skipped: null, last_poll_at: null },
  }
  const now = Date.parse('2026-01-01T12:00:00Z')
  const active = { status: 'active' as const, last_event_at: null, webhook_address: null }

  it('answers why a trigger does not fire, most basic cause first', () => {
    expect(
      healthVerdict(
        active,
        { ...healthy, integration: { ...healthy.integration, connected: false } },
        'Trello',
        now,
      ),
    ).toMatchObject({ tone: 'error', text: expect.stringMatching(/not connected/) })
    expect(healthVerdict({ ...active, status: 'inactive' }, healthy, 'Trello', now)).toMatchObject({
      tone: 'warning',
      text: expect.stringMatching(/inactive/),
    })
    expect(
      healthVerdict(
        active,
        { ...healthy, webhooks: [{ ...healthy.webhooks[0], present: false }] },
        'Trello',
        now,
      ),
    ).toMatchObject({ tone: 'error', text: expect.stringMatching(/webhook at Trello is gone/) })
    expect(
      healthVerdict(
        active,
        {
          ...healthy,
          last_error: 'Mapping failed',
          last_error_at: '2026-01-01T11:00:00Z',
          last_event_at: '2026-01-01T10:00:00Z',
        },
        'Trello',
        now,
      ),
    ).toMatchObject({ tone: 'error', text: expect.stringMatching(/Mapping failed/) })
    expect(healthVerdict(active, healthy, 'Trello', now)).toMatchObject({
      tone: 'ok',
      text: expect.stringMatching(
        /No event has arrived yet.*as someone other than Ada \(changes made by the integration's own account start nothing\)/,
      ),
    })
    expect(healthVerdict({ ...active, start_on_own_changes: true }, healthy, 'Trello', now).text).not.toMatch(
      /someone other/,
    )
    expect(
      healthVerdict(
        { ...active, webhook_address: 'https://sy.test/v1/hooks/x' },
        { ...healthy, webhooks: [] },
        'Zendesk',
        now,
      ),
    ).toMatchObject({
      tone: 'warning',
      text: expect.stringMatching(/Check that Zendesk has a webhook sending to the address/),
    })
    expect(
      healthVerdict(active, { ...healthy, last_event_at: '2026-01-01T11:30:00Z' }, 'Trello', now),
    ).toEqual({ tone: 'ok', text: 'Working: the last event arrived 30 min ago.' })
  })

  it('says how many deliveries were refused and what to do, rather than "no event yet"', () => {
    const counts = {}
    const refused = {
      ...healthy,
      deliveries: {
        recent: 4,
        counts,
        refused: {
          count: 4,
          last_at: '2026-01-01T11:59:00Z',
          reason:
            "the webhook signature does not match the secret saved for this trigger: paste the webhook's secret again",
        },
        skipped: null,
        last_poll_at: null,
      },
    }
    expect(
      healthVerdict({ ...active, webhook_address: 'https://sy.test/hooks/x' }, refused, 'Vercel', now),
    ).toMatchObject({
      tone: 'error',
      text: expect.stringMatching(/^4 deliveries from Vercel were refused.*paste the webhook's secret again/),
    })
    // A later accepted event outranks older refusals.
    expect(
      healthVerdict(active, { ...refused, last_event_at: '2026-01-01T11:59:30Z' }, 'Vercel', now).tone,
    ).toBe('ok')
  })

  it('says how many events the loop guard skipped and names the option', () => {
    const skipped: SubscriptionHealth = {
      ...healthy,
      deliveries: {
        recent: 1,
        counts: {},
        refused: null,
        skipped: { count: 1, last_at: '2026-01-01T11:59:00Z', reason: 'own', option: 'start_on_own_changes' },
        last_poll_at: null,
      },
    }
    expect(healthVerdict(active, skipped, 'Trello', now)).toMatchObject({
      tone: 'warning',
      text: expect.stringMatching(/One event started nothing.*made by Ada itself.*start_on_own_changes/),
    })
    expect(healthVerdict({ ...active, start_on_own_changes: true }, skipped, 'Trello', now).tone).toBe('ok')
  })
})
