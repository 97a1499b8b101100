import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDeclaredOrThrow } from '../src/core/validation.ts'
import { zendesk } from '../src/platforms/zendesk/platform.ts'
import { MAX_SKEW_MS, zendeskWebhooks } from '../src/platforms/zendesk/webhooks.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, zendeskControl } from './helpers/stack.ts'
import {
  actAs,
  freshEvent,
  isoSeconds,
  post,
  remoteWebhooks,
  runCount,
  settled,
  sign,
  signingSecret,
  ZENDESK_AGENT,
} from './helpers/zendesk-triggers.ts'

// Zendesk's five triggers through the engine over real HTTP: subscriptions activated through the
// REST API make one event webhook on the sandbox, people change tickets in the sandbox's agent UI
// (its control API) or through the product's own steps, and the sandbox's signed deliveries reach
// the intake. Runs on PGlite, or on PostgreSQL with TEST_DATABASE_URL.
let stack: TestStack
let api: ReturnType<typeof client>
let integration: string
let agentUserId: number
let adminUserId: number

const TRIGGERS = [
  'zendesk.new_ticket',
  'zendesk.ticket_status_changed',
  'zendesk.ticket_priority_updated',
  'zendesk.new_comment',
  'zendesk.ticket_assigned',
]
const trigger = (id: string) => zendesk.triggers.find((t) => t.id === id)!

/** One agent per subscription, so its runs count that subscription's starts. */
async function subscribed(
  triggerId: string,
  config: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
  as = api,
) {
  const agent = await as.post('/v1/agents', {
    name: `${triggerId} ${JSON.stringify(config)} ${Math.random().toString(36).slice(2, 8)}`,
    inputs: [{ name: 'ticket_id', type: 'number', required: true }],
    kind: 'steps',
    steps: [
      {
        key: 'look',
        tool: 'zendesk.get_ticket',
        integration: extra.integration ?? integration,
        input: { ticket_id: '{{ inputs.ticket_id }}' },
      },
    ],
    output: {},
  })
  expect(agent.status, agent.text).toBe(201)
  const sub = await as.post(`/v1/agents/${agent.body.id}/subscriptions`, {
    trigger: triggerId,
    config,
    mapping: { ticket_id: '{{ ticket.id }}' },
    ...extra,
    integration: extra.integration ?? integration,
  })
  expect(sub.status, sub.text).toBe(201)
  return { agent: agent.body.id as string, sub: sub.body.id as string }
}

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  api = client(stack, stack.apiKey)
  integration = (await connectZendesk(stack)).integrationId!
  await zendeskControl(stack).call('PUT', '/delivery-settings', { retry_delays_ms: [20, 50, 100] })
  const token = await zendeskControl(stack).mintToken(ZENDESK_AGENT)
  agentUserId = (
    await (
      await fetch(`${stack.sandboxUrl}/zendesk/acme/api/v2/users/me.json`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()
  ).user.id
  const admin = await zendeskControl(stack).mintToken('admin@acme.test')
  adminUserId = (
    await (
      await fetch(`${stack.sandboxUrl}/zendesk/acme/api/v2/users/me.json`, {
        headers: { authorization: `Bearer ${admin}` },
      })
    ).json()
  ).user.id
})
afterAll(async () => stack?.close())

describe('the platform declares its triggers', () => {
  it('has the five, Enterprise only, sharing one model, with samples that fit their event schemas', () => {
    expect(zendesk.triggers.map((t) => t.id)).toEqual(TRIGGERS)
    for (const t of zendesk.triggers) {
      expect(t.requiredPlan, t.id).toBe('enterprise')
      expect(t.mode, t.id).toBe('instant')
      expect(t.event.safeParse(t.sample).success, t.id).toBe(true)
      expect(t.models!(t.config.parse({}))).toEqual(['tickets'])
    }
    expect(trigger('zendesk.new_comment').config.parse({})).toEqual({ visibility: 'both' })
    expect(
      trigger('zendesk.new_comment').config.safeParse({ visibility: 'secret' }).error?.issues[0]?.message,
    ).toMatch(/public, internal or both/)
    expect(
      trigger('zendesk.ticket_assigned').config.safeParse({ agent_ids: ['x'] }).error?.issues[0]?.message,
    ).toMatch(/agent's user id/)
    expect(() => parseDeclaredOrThrow(trigger('zendesk.new_comment').config, { board: 1 }, 'config')).toThrow(
      'config.board: is not a known field; the fields are visibility',
    )
    expect(zendesk.webhooks?.confirm).toBeUndefined()
  })
})

describe('the catalogue', () => {
  it('lists the five with their configuration, and the agents to pick for an assignment', async () => {
    const found = await api.get('/v1/triggers?q=zendesk')
    expect(
      found.body.triggers
        .filter((t: any) => t.platform === 'zendesk')
        .map((t: any) => t.id)
        .sort(),
    ).toEqual([...TRIGGERS].sort())
    const assigned = (await api.get('/v1/triggers/zendesk.ticket_assigned')).body
    expect(Object.keys(assigned.configSchema.properties)).toEqual(['agent_ids'])
    const options = await api.get(
      `/v1/triggers/zendesk.ticket_assigned/options/agent_ids?integration=${integration}`,
    )
    expect(options.status, options.text).toBe(200)
    expect(options.body.options.map((o: any) => o.value)).toEqual(
      expect.arrayContaining([agentUserId, adminUserId]),
    )
  })
})

describe('on the engine', () => {
  const subs: Record<string, { agent: string; sub: string }> = {}
  let hook: { id: string; endpoint: string; subscriptions: string[] }
  let ticketId: number
  let delivered: string

  /** Runs `change`, waits for its deliveries, and answers how many runs each named subscription gained. */
  async function starts(change: () => Promise<unknown>): Promise<Record<string, number>> {
    await settled(stack)
    const before = Object.fromEntries(
      await Promise.all(Object.entries(subs).map(async ([k, s]) => [k, await runCount(stack, s.agent)])),
    )
    await change()
    const deliveries = await settled(stack)
    for (const d of deliveries) expect(d.state, JSON.stringify(d.attempts)).toBe('delivered')
    const after = await Promise.all(
      Object.entries(subs).map(async ([k, s]) => [k, (await runCount(stack, s.agent)) - before[k]] as const),
    )
    return Object.fromEntries(after.filter(([, n]) => n !== 0))
  }

  it('activating several subscriptions makes one webhook on the account, subscribed to the five ticket events', async () => {
    expect(await remoteWebhooks(stack)).toEqual([])
    subs.created = await subscribed('zendesk.new_ticket')
    subs.status = await subscribed('zendesk.ticket_status_changed')
    subs.solved = await subscribed('zendesk.ticket_status_changed', { statuses: ['solved'] })
    subs.priority = await subscribed('zendesk.ticket_priority_updated')
    subs.comment = await subscribed('zendesk.new_comment')
    subs.public = await subscribed('zendesk.new_comment', { visibility: 'public' })
    subs.internal = await subscribed('zendesk.new_comment', { visibility: 'internal' })
    subs.assigned = await subscribed('zendesk.ticket_assigned')
    subs.toAgent = await subscribed('zendesk.ticket_assigned', { agent_ids: [String(agentUserId)] })
    subs.toAdmin = await subscribed('zendesk.ticket_assigned', { agent_ids: [adminUserId] })
    for (const { sub } of Object.values(subs)) {
      const res = await api.post(`/v1/subscriptions/${sub}/activate`)
      expect(res.status, res.text).toBe(200)
    }
    const hooks = await remoteWebhooks(stack)
    expect(hooks).toHaveLength(1)
    hook = hooks[0]!
    expect(hook.subscriptions.sort()).toEqual([
      'zen:event-type:ticket.agent_assignment_changed',
      'zen:event-type:ticket.comment_added',
      'zen:event-type:ticket.created',
      'zen:event-type:ticket.priority_changed',
      'zen:event-type:ticket.status_changed',
    ])
    expect(hook.endpoint).toMatch(new RegExp(`^${stack.url}/hooks/[A-Za-z0-9_-]{16,}$`))
    const rows = await stack.services.store.db
      .selectFrom('webhooks')
      .selectAll()
      .where('integration_id', '=', integration)
      .execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ remote_id: hook.id, status: 'active', model_key: 'tickets' })
    expect(rows[0]!.secret).toBeTruthy()
    expect(rows[0]!.secret).not.toContain(await signingSecret(stack, hook.id))
    const health = await api.get(`/v1/subscriptions/${subs.created.sub}/health`)
    expect(health.body.webhooks).toEqual([
      expect.objectContaining({ remote_id: hook.id, present: true, status: 'active' }),
    ])
  })

  it('a new ticket fires New Ticket Created alone, with the ticket in the event', async () => {
    const fired = await starts(async () => {
      ticketId = (
        await actAs(stack, ZENDESK_AGENT, 'POST', '/api/v2/tickets.json', {
          ticket: {
            subject: 'Printer on fire',
            comment: { body: 'Smoke everywhere' },
            requester_id: undefined,
          },
        })
      ).ticket.id
    })
    expect(fired).toEqual({ created: 1 })
    const { body } = await api.get(`/v1/runs?agent_id=${subs.created.agent}&limit=1`)
    const run = (await api.get(`/v1/runs/${body.runs[0].id}`)).body
    expect(run.inputs).toEqual({ ticket_id: ticketId })
    expect(run.event).toMatchObject({
      event: { type: 'ticket.created', id: expect.any(String) },
      ticket: {
        id: ticketId,
        subject: 'Printer on fire',
        description: 'Smoke everywhere',
        status: 'new',
        requester: { id: agentUserId },
        assignee: null,
      },
      actor: { id: agentUserId },
    })
    expect(trigger('zendesk.new_ticket').event.safeParse(run.event).success).toBe(true)
  })

  it('status, priority, comments and assignment each fire their triggers, filtered by their configuration', async () => {
    const put = (ticket: Record<string, unknown>) => () =>
      actAs(stack, ZENDESK_AGENT, 'PUT', `/api/v2/tickets/${ticketId}.json`, { ticket })
    expect(await starts(put({ status: 'open' }))).toEqual({ status: 1 })
    expect(await starts(put({ status: 'solved', assignee_id: agentUserId }))).toEqual({
      status: 1,
      solved: 1,
      assigned: 1,
      toAgent: 1,
    })
    expect(await starts(put({ status: 'open', priority: 'urgent' }))).toEqual({ status: 1, priority: 1 })
    expect(await starts(put({ comment: { body: 'We are on it', public: true } }))).toEqual({
      comment: 1,
      public: 1,
    })
    expect(await starts(put({ comment: { body: 'Call the fire brigade', public: false } }))).toEqual({
      comment: 1,
      internal: 1,
    })
    expect(await starts(put({ assignee_id: adminUserId }))).toEqual({ assigned: 1, toAdmin: 1 })
    // Unassigning is not an assignment to an agent; a tag changes nothing watched.
    expect(await starts(put({ assignee_id: null, additional_tags: ['x'] }))).toEqual({})
    const { body } = await api.get(`/v1/runs?agent_id=${subs.internal.agent}&limit=1`)
    const run = (await api.get(`/v1/runs/${body.runs[0].id}`)).body
    expect(run.event).toMatchObject({
      comment: {
        body: 'Call the fire brigade',
        public: false,
        author: { id: agentUserId, name: 'Alan Agent', is_staff: true },
      },
      actor: { id: agentUserId, name: 'Alan Agent' },
    })
    const deliveries = await settled(stack)
    delivered = deliveries.find((d: any) => d.event_type === 'zen:event-type:ticket.priority_changed').body
  })

  it('a change the integration made itself starts nothing, unless the subscription asks', async () => {
    const update = (priority: string) => async () => {
      const res = await api.run('zendesk.update_ticket', integration, { ticket_id: ticketId, priority })
      expect(res.status, res.text).toBe(200)
    }
    expect(await starts(update('low'))).toEqual({})
    const patched = await api.call('PATCH', `/v1/subscriptions/${subs.priority.sub}`, {
      start_on_own_changes: true,
    })
    expect(patched.body.start_on_own_changes).toBe(true)
    expect(await starts(update('high'))).toEqual({ priority: 1 })
  })

  it('acknowledged only when durable: right after the 200, the event and its run are in the database', async () => {
    const secret = await signingSecret(stack, hook.id)
    const db = stack.services.store.db
    for (let i = 0; i < 3; i++) {
      const body = freshEvent(delivered)
      const timestamp = isoSeconds(Date.now())
      const res = await post(hook.endpoint, body, {
        'x-zendesk-webhook-signature': sign(secret, timestamp, body),
        'x-zendesk-webhook-signature-timestamp': timestamp,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const event = await db
        .selectFrom('events')
        .select('id')
        .where('dedupe_key', '=', JSON.parse(body).id)
        .executeTakeFirst()
      expect(event, `event ${i}`).toBeDefined()
      const run = await db
        .selectFrom('runs')
        .select('id')
        .where('event_id', '=', event!.id)
        .where('subscription_id', '=', subs.priority.sub)
        .executeTakeFirst()
      expect(run, `run of event ${i}`).toBeDefined()
    }
  })

  it('three concurrent copies of one delivery start one run; a sandbox duplicate starts one too', async () => {
    const secret = await signingSecret(stack, hook.id)
    const body = freshEvent(delivered)
    const before = await runCount(stack, subs.priority.agent)
    const timestamp = isoSeconds(Date.now())
    const headers = {
      'x-zendesk-webhook-signature': sign(secret, timestamp, body),
      'x-zendesk-webhook-signature-timestamp': timestamp,
    }
    const answers = await Promise.all([1, 2, 3].map(() => post(hook.endpoint, body, headers)))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    expect(answers.reduce((n, a) => n + a.body.accepted, 0)).toBe(1)
    expect(answers.reduce((n, a) => n + a.body.duplicates, 0)).toBe(2)
    expect(await runCount(stack, subs.priority.agent)).toBe(before + 1)

    await zendeskControl(stack).call('POST', '/delivery-faults', { kind: 'duplicate', times: 1 })
    expect(
      await starts(() =>
        actAs(stack, ZENDESK_AGENT, 'PUT', `/api/v2/tickets/${ticketId}.json`, {
          ticket: { priority: 'normal' },
        }),
      ),
    ).toEqual({ priority: 1 })
  })

  it('an event without an id, replayed with other invocation ids, starts one run: the dedupe key is signed', async () => {
    // x-zendesk-webhook-invocation-id is outside the signature: keying on it let one captured delivery
    // start a run per replay inside the signature's window (issue 22, §6).
    const secret = await signingSecret(stack, hook.id)
    const body = freshEvent(delivered, { id: '' })
    const timestamp = isoSeconds(Date.now())
    const before = await runCount(stack, subs.priority.agent)
    const answers = []
    for (const invocation of ['inv-1', 'inv-2', 'inv-3'])
      answers.push(
        await post(hook.endpoint, body, {
          'x-zendesk-webhook-signature': sign(secret, timestamp, body),
          'x-zendesk-webhook-signature-timestamp': timestamp,
          'x-zendesk-webhook-invocation-id': invocation,
        }),
      )
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    expect(answers.map((a) => a.body)).toEqual([
      { accepted: 1, duplicates: 0 },
      { accepted: 0, duplicates: 1 },
      { accepted: 0, duplicates: 1 },
    ])
    expect(await runCount(stack, subs.priority.agent)).toBe(before + 1)
  })

  it('refuses every delivery that is not signed as Zendesk signs, and stores nothing', async () => {
    const secret = await signingSecret(stack, hook.id)
    const body = freshEvent(delivered)
    const now = Date.now()
    const signed = (at: number, over = body) => {
      const timestamp = isoSeconds(at)
      return {
        'x-zendesk-webhook-signature': sign(secret, timestamp, over),
        'x-zendesk-webhook-signature-timestamp': timestamp,
      }
    }
    const count = async () =>
      Number(
        (
          await stack.services.store.db
            .selectFrom('events')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const events = await count()
    const runs = await runCount(stack, subs.priority.agent)
    const cases: Array<[string, Record<string, string | undefined>, string?]> = [
      ['no signature', { ...signed(now), 'x-zendesk-webhook-signature': undefined }],
      ['no timestamp', { ...signed(now), 'x-zendesk-webhook-signature-timestamp': undefined }],
      [
        'a wrong signature',
        { ...signed(now), 'x-zendesk-webhook-signature': sign('not-the-secret', isoSeconds(now), body) },
      ],
      // A minute past the window each way: the cases are sent one after another, and on a loaded machine
      // the seconds they take would bring a timestamp one second past the window back inside it.
      ['a stale timestamp', signed(now - MAX_SKEW_MS - 60_000)],
      ['a future timestamp', signed(now + MAX_SKEW_MS + 60_000)],
      [
        'a changed body',
        signed(now),
        body
          .replace('"priority_changed"', '"status_changed"')
          .replace(/"current":"[A-Z]+"/, '"current":"SOLVED"'),
      ],
      [
        'a signature for another timestamp',
        { ...signed(now), 'x-zendesk-webhook-signature-timestamp': isoSeconds(now - 1000) },
      ],
    ]
    for (const [name, headers, sent] of cases) {
      const res = await post(hook.endpoint, sent ?? body, headers)
      expect(res.status, name).toBe(401)
    }
    expect(await count()).toBe(events)
    expect(await runCount(stack, subs.priority.agent)).toBe(runs)
    // The real thing passes.
    expect((await post(hook.endpoint, body, signed(now))).body).toEqual({ accepted: 1, duplicates: 0 })
  })

  it("fails closed: without the webhook's secret no delivery is accepted", async () => {
    const row = await stack.services.store.db
      .selectFrom('webhooks')
      .selectAll()
      .where('remote_id', '=', hook.id)
      .executeTakeFirstOrThrow()
    const secret = await signingSecret(stack, hook.id)
    const body = freshEvent(delivered)
    const timestamp = isoSeconds(Date.now())
    expect(
      await zendeskWebhooks.verify(
        { rawBody: Buffer.from(body), headers: {}, callbackUrl: hook.endpoint },
        {},
      ),
    ).toBe('unverifiable')
    await stack.services.webhooks.setSecret(row.id, null)
    try {
      const res = await post(hook.endpoint, body, {
        'x-zendesk-webhook-signature': sign(secret, timestamp, body),
        'x-zendesk-webhook-signature-timestamp': timestamp,
      })
      expect(res.status).toBe(401)
    } finally {
      await stack.services.webhooks.setSecret(row.id, secret)
    }
  })

  it('a test reads recent tickets through the same match, with the people named', async () => {
    const res = await api.post(`/v1/subscriptions/${subs.internal.sub}/test`, {})
    expect(res.status, res.text).toBe(200)
    expect(res.body.source).toBe('recent')
    expect(res.body.event).toMatchObject({
      comment: { public: false },
      ticket: { requester: { id: expect.any(Number), name: expect.any(String) } },
    })
    expect(trigger('zendesk.new_comment').event.safeParse(res.body.event).success).toBe(true)
    const created = await api.post(`/v1/subscriptions/${subs.created.sub}/test`, {})
    expect(created.body).toMatchObject({
      source: 'recent',
      inputs: { ticket_id: ticketId },
      event: { ticket: { id: ticketId, requester: { name: 'Alan Agent', email: ZENDESK_AGENT } } },
    })
  })

  it('a live event names its people as a test does: ticket.requester.email is filled in before mapping', async () => {
    const agent = await api.post('/v1/agents', {
      name: `People ${Math.random().toString(36).slice(2, 8)}`,
      inputs: [
        { name: 'ticket_id', type: 'number', required: true },
        { name: 'email', type: 'string', required: true },
        { name: 'who', type: 'string' },
      ],
      kind: 'steps',
      steps: [
        {
          key: 'look',
          tool: 'zendesk.get_ticket',
          integration,
          input: { ticket_id: '{{ inputs.ticket_id }}' },
        },
      ],
      output: {},
    })
    expect(agent.status, agent.text).toBe(201)
    const sub = await api.post(`/v1/agents/${agent.body.id}/subscriptions`, {
      trigger: 'zendesk.new_ticket',
      integration,
      config: {},
      mapping: {
        ticket_id: '{{ ticket.id }}',
        email: '{{ ticket.requester.email }}',
        who: '{{ actor.name }}',
      },
    })
    expect(sub.status, sub.text).toBe(201)
    expect((await api.post(`/v1/subscriptions/${sub.body.id}/activate`)).status).toBe(200)
    const token = await zendeskControl(stack).mintToken(ZENDESK_AGENT)
    const me = (
      await (
        await fetch(`${stack.sandboxUrl}/zendesk/acme/api/v2/users/me.json`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()
    ).user
    try {
      await settled(stack)
      await zendeskControl(stack).clearRequests()
      const created = await actAs(stack, ZENDESK_AGENT, 'POST', '/api/v2/tickets.json', {
        ticket: { subject: 'Who asked?', comment: { body: 'Me' } },
      })
      await settled(stack)
      const { body } = await api.get(`/v1/runs?agent_id=${agent.body.id}`)
      expect(body.runs).toHaveLength(1)
      expect(body.runs[0].error).toBeNull()
      expect(body.runs[0].inputs).toEqual({
        ticket_id: created.ticket.id,
        email: ZENDESK_AGENT,
        who: me.name,
      })
      // The delivery carried ids only; one Show Many Users call named them, and only for the subscription
      // whose mapping reads people (the others on this webhook map ticket.id and ask nothing).
      const asked = (await zendeskControl(stack).requests()).filter((r) => /\/users\/show_many/.test(r.path))
      expect(asked).toHaveLength(1)
    } finally {
      await api.post(`/v1/subscriptions/${sub.body.id}/deactivate`)
    }
  })

  it('the webhook stays while any subscription needs it and goes with the last', async () => {
    const all = Object.values(subs)
    for (const { sub } of all.slice(0, -1))
      expect((await api.post(`/v1/subscriptions/${sub}/deactivate`)).status).toBe(200)
    expect((await remoteWebhooks(stack)).map((w) => w.id)).toEqual([hook.id])
    expect((await api.post(`/v1/subscriptions/${all.at(-1)!.sub}/deactivate`)).status).toBe(200)
    expect(await remoteWebhooks(stack)).toEqual([])
    expect(
      await stack.services.store.db
        .selectFrom('webhooks')
        .selectAll()
        .where('integration_id', '=', integration)
        .execute(),
    ).toEqual([])
  })

  it('a failed removal is kept, shown and retried', async () => {
    const { sub } = await subscribed('zendesk.new_ticket')
    await api.post(`/v1/subscriptions/${sub}/activate`)
    const [remote] = await remoteWebhooks(stack)
    // Enough failures to outlast the client's own retries.
    await zendeskControl(stack).fault({
      status: 500,
      match: { method: 'DELETE', path: '/api/v2/webhooks/' },
      times: 10,
    })
    await api.post(`/v1/subscriptions/${sub}/deactivate`)
    await zendeskControl(stack).clearFaults()
    expect((await remoteWebhooks(stack)).map((w) => w.id)).toEqual([remote!.id])
    // Health shows what is left behind, with its remote id and why, until the retry removes it.
    const health = await api.get(`/v1/subscriptions/${sub}/health`)
    expect(health.body.webhooks).toEqual([
      expect.objectContaining({
        remote_id: String(remote!.id),
        status: 'remove_failed',
        last_error: expect.any(String),
      }),
    ])
    const row = await stack.services.store.db
      .selectFrom('webhooks')
      .selectAll()
      .where('remote_id', '=', remote!.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ status: 'remove_failed', last_error: expect.any(String) })
    await stack.services.store.db
      .updateTable('webhooks')
      .set({ cleanup_at: new Date(0) })
      .where('id', '=', row.id)
      .execute()
    await stack.services.webhooks.retryCleanups()
    expect(await remoteWebhooks(stack)).toEqual([])
    expect((await api.get(`/v1/subscriptions/${sub}/health`)).body.webhooks).toEqual([])
  })
})

describe('the plan rule', () => {
  it('answers 402 plan_required naming Enterprise on create, test and activate, while tool steps stay open', async () => {
    const user = await stack.createUser('enterprise')
    const as = client(stack, user.apiKey)
    const own = (await connectZendesk({ url: stack.url, apiKey: user.apiKey }, { email: ZENDESK_AGENT }))
      .integrationId!
    const { agent, sub } = await subscribed('zendesk.new_ticket', {}, { integration: own }, as)
    expect((await api.call('PATCH', `/v1/users/${user.id}`, { plan: 'pro' })).status).toBe(200)
    const refusals = [
      await as.post(`/v1/agents/${agent}/subscriptions`, {
        trigger: 'zendesk.ticket_assigned',
        integration: own,
        config: {},
        mapping: {},
      }),
      await as.post(`/v1/subscriptions/${sub}/test`, {}),
      await as.post(`/v1/subscriptions/${sub}/activate`),
    ]
    for (const res of refusals) {
      expect(res.status, res.text).toBe(402)
      expect(JSON.stringify(res.body)).toMatch(/plan_required/)
      expect(JSON.stringify(res.body)).toMatch(/enterprise plan/i)
    }
    const tool = await as.run('zendesk.list_tickets', own, {})
    expect(tool.status, tool.text).toBe(200)
  })

  it('the catalogue tells each caller, before any form is filled, which triggers their plan allows', async () => {
    const pro = client(stack, (await stack.createUser('pro')).apiKey)
    const enterprise = client(stack, (await stack.createUser('enterprise')).apiKey)
    const availability = async (as: typeof pro) =>
      Object.fromEntries(
        ((await as.get('/v1/triggers?q=zendesk')).body.triggers as Array<Record<string, unknown>>)
          .filter((t) => t.platform === 'zendesk')
          .map((t) => [t.id, t.availableOnYourPlan]),
      )
    const onPro = await availability(pro)
    expect(Object.keys(onPro).length).toBeGreaterThan(0)
    expect(new Set(Object.values(onPro))).toEqual(new Set([false]))
    expect(new Set(Object.values(await availability(enterprise)))).toEqual(new Set([true]))
    expect((await pro.get('/v1/triggers/zendesk.new_ticket')).body.availableOnYourPlan).toBe(false)
    const trello = (await pro.get('/v1/triggers/trello.new_card')).body
    expect(trello).toMatchObject({ requiredPlan: null, availableOnYourPlan: true })
  })
})
