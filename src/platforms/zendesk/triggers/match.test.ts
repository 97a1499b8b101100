import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Delivery, EventCandidate } from '../../../core/triggers/define.ts'
import { zendeskWebhooks } from '../webhooks.ts'
import { sampleEvent } from './event.ts'
import { zendeskTriggers } from './index.ts'

// match() runs in the intake on whatever a verified delivery held: it answers null, never throws,
// for anything that is not its event. verify() and parse() are the facet's pure parts. (Real
// deliveries through the engine are in test/zendesk-triggers.test.ts.)
const trigger = (id: string) => zendeskTriggers.find((t) => t.id === id)!
const fire = (raw: unknown, type = (raw as { type?: string })?.type ?? 'x'): string[] =>
  zendeskTriggers
    .filter((t) => t.match!({ dedupeKey: 'k', type, raw } as EventCandidate, t.config.parse({})) !== null)
    .map((t) => t.id)

describe('match()', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'zen:event-type:ticket.created'],
    ['no detail', { type: 'zen:event-type:ticket.created', id: 'e', event: {} }],
    ['detail is an array', { type: 'zen:event-type:ticket.created', id: 'e', detail: [], event: {} }],
    ['a comment that is a string', { ...sampleEvent('ticket.comment_added', { comment: 'hi' }) }],
    [
      'a comment without is_public',
      { ...sampleEvent('ticket.comment_added', { comment: { id: '1', body: 'b' } }) },
    ],
    [
      'an assignment to nobody',
      { ...sampleEvent('ticket.agent_assignment_changed', { previous: 5, current: null }) },
    ],
    [
      'an assignment to an object',
      { ...sampleEvent('ticket.agent_assignment_changed', { previous: null, current: { id: 5 } }) },
    ],
    ['another event type', { ...sampleEvent('ticket.tags_changed', { current: ['a'] }) }],
  ])('%s: nothing fires, nothing throws', (_name, raw) => {
    expect(fire(raw)).toEqual([])
  })

  it('each event type fires its own trigger only', () => {
    for (const t of zendeskTriggers) expect(fire(sampleOf(t.id))).toEqual([t.id])
  })

  it('reads ids as strings or numbers and enums in any case', () => {
    const assigned = trigger('zendesk.ticket_assigned')
    const event = assigned.match!(
      {
        dedupeKey: 'k',
        type: 'zen:event-type:ticket.agent_assignment_changed',
        raw: sampleEvent('ticket.agent_assignment_changed', { previous: '7', current: '8447388090494' }),
      },
      assigned.config.parse({ agent_ids: ['8447388090494'] }),
    )
    expect(event).toMatchObject({
      previous: { id: 7 },
      current: { id: 8447388090494 },
      ticket: { id: 5158, status: 'open', priority: 'high', requester: { id: 8447388090500 } },
    })
    const status = trigger('zendesk.ticket_status_changed')
    const solved = sampleEvent('ticket.status_changed', { previous: 'open', current: 'solved' })
    expect(
      status.match!(
        { dedupeKey: 'k', type: solved.type, raw: solved },
        status.config.parse({ statuses: ['solved'] }),
      ),
    ).toMatchObject({ previous: 'open', current: 'solved' })
    expect(
      status.match!(
        { dedupeKey: 'k', type: solved.type, raw: solved },
        status.config.parse({ statuses: ['pending'] }),
      ),
    ).toBeNull()
  })
})

function sampleOf(id: string) {
  const samples: Record<string, ReturnType<typeof sampleEvent>> = {
    'zendesk.new_ticket': sampleEvent('ticket.created', { current: { status: 'NEW' } }),
    'zendesk.ticket_status_changed': sampleEvent('ticket.status_changed', {
      current: 'SOLVED',
      previous: 'OPEN',
    }),
    'zendesk.ticket_priority_updated': sampleEvent('ticket.priority_changed', {
      current: 'LOW',
      previous: null,
    }),
    'zendesk.new_comment': sampleEvent('ticket.comment_added', {
      comment: { id: '1', body: 'b', is_public: false, author: { id: '2' } },
    }),
    'zendesk.ticket_assigned': sampleEvent('ticket.agent_assignment_changed', { current: 3, previous: 2 }),
  }
  return samples[id]
}

describe('the webhook facet', () => {
  const body = JSON.stringify(sampleEvent('ticket.created', { current: { status: 'NEW' } }))
  const delivery = (headers: Record<string, string | undefined>, raw = body): Delivery => ({
    rawBody: Buffer.from(raw),
    headers,
    callbackUrl: 'https://s.example/hooks/t',
  })
  const signed = (secret: string, at: number, raw = body) => {
    const timestamp = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z')
    return {
      'x-zendesk-webhook-signature': createHmac('sha256', secret)
        .update(timestamp + raw)
        .digest('base64'),
      'x-zendesk-webhook-signature-timestamp': timestamp,
    }
  }

  it('verify(): valid within 300 s; no secret is unverifiable; anything else invalid', async () => {
    const verify = (headers: Record<string, string | undefined>, secret?: string) =>
      zendeskWebhooks.verify(delivery(headers), { hookSecret: secret })
    expect(await verify(signed('s', Date.now()), 's')).toBe('valid')
    expect(await verify(signed('s', Date.now() - 290_000), 's')).toBe('valid')
    expect(await verify(signed('s', Date.now()), undefined)).toBe('unverifiable')
    expect(await verify(signed('s', Date.now() - 360_000), 's')).toBe('invalid')
    expect(await verify(signed('s', Date.now() + 360_000), 's')).toBe('invalid')
    expect(await verify(signed('t', Date.now()), 's')).toBe('invalid')
    expect(
      await verify({ ...signed('s', Date.now()), 'x-zendesk-webhook-signature': 'not base64!' }, 's'),
    ).toBe('invalid')
    expect(
      await verify({ ...signed('s', Date.now()), 'x-zendesk-webhook-signature-timestamp': 'yesterday' }, 's'),
    ).toBe('invalid')
    expect(await verify({}, 's')).toBe('invalid')
  })

  it('parse(): one candidate keyed by the event id, its actor named as the integration is', () => {
    expect(zendeskWebhooks.parse(delivery({ 'x-switchyard-account': 'acme' }))).toEqual([
      {
        dedupeKey: 'a8b9c1d2-3e4f-5a6b-7c8d-9e0f1a2b3c4d',
        type: 'zen:event-type:ticket.created',
        raw: JSON.parse(body),
        actorId: 'acme:8447388090494',
      },
    ])
    expect(zendeskWebhooks.parse(delivery({}))[0]).not.toHaveProperty('actorId')
    // Without an event id the key is the signed bytes' hash, never the unsigned invocation header:
    // a replay under other invocation ids is the same event (issue 22, section 6).
    const noId = JSON.stringify({ ...JSON.parse(body), id: '' })
    const keyOf = (invocation: string) =>
      zendeskWebhooks.parse(delivery({ 'x-zendesk-webhook-invocation-id': invocation }, noId))[0]!.dedupeKey
    expect(keyOf('835')).toMatch(/^body:/)
    expect(keyOf('836')).toBe(keyOf('835'))
  })

  it.each([
    ['not JSON', '{', 'body'],
    ['not an event', '{"action":{}}', 'body'],
  ])('parse() refuses %s, naming the field', (_name, raw, field) => {
    expect(() => zendeskWebhooks.parse(delivery({}, raw))).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        extras: expect.objectContaining({ errors: [expect.objectContaining({ field })] }),
      }),
    )
  })
})
