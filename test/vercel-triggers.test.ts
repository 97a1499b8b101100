import { createHash, createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { vercel } from '../src/platforms/vercel/platform.ts'
import { vercelWebhooks } from '../src/platforms/vercel/webhooks.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { parseForm } from './helpers/browser-like.ts'
import { client } from './helpers/stack.ts'
import { connectVercel, VERCEL, vercelControl } from './helpers/vercel.ts'

// Vercel's triggers end to end over real HTTP, on PGlite (or TEST_DATABASE_URL): the user adds a
// webhook in Vercel (the sandbox's API or its project settings page) pointing at the subscription's
// own address and pastes its secret; the sandbox delivers deployment events as deployments move on;
// the intake verifies, deduplicates, matches and starts runs with mapped inputs.
let stack: TestStack
let api: ReturnType<typeof client>
let control: ReturnType<typeof vercelControl>
let integration: string
let agentId: string
let adaToken: string

/** Event ids unique to this run: a PostgreSQL test database keeps earlier runs' events. */
const RUN = Math.random().toString(36).slice(2, 10)
const eid = (name: string) => `${name}${RUN}`
const MAPPING = {
  url: '{{ deployment.url }}',
  state: '{{ deployment.state }}',
  deployment_id: '{{ deployment.id }}',
}
const sha1 = (secret: string, body: string) => createHmac('sha1', secret).update(body).digest('hex')
const trigger = (id: string) => vercel.triggers.find((t) => t.id === id)!

/** A subscription of the agent to a Vercel trigger, active, with the secret given (or none). */
async function subscribe(
  triggerId: string,
  secret?: string,
  config: Record<string, unknown> = {},
  mapping: Record<string, string> = MAPPING,
) {
  const created = await api.post(`/v1/agents/${agentId}/subscriptions`, {
    trigger: triggerId,
    integration,
    config,
    mapping,
    ...(secret ? { webhook_secret: secret } : {}),
  })
  expect(created.status, created.text).toBe(201)
  const activated = await api.post(`/v1/subscriptions/${created.body.id}/activate`)
  expect(activated.status, activated.text).toBe(200)
  return activated.body as { id: string; webhook_address: string; webhook_secret_set: boolean }
}

/** A Vercel-shaped event as the sandbox sends it. */
const event = (type: string, id: string, projectId: string = VERCEL.personalProject.id) =>
  JSON.stringify({
    id,
    type,
    createdAt: 1772443800000,
    region: 'iad1',
    payload: {
      team: null,
      user: { id: VERCEL.user.id },
      deployment: {
        id: 'dpl_TestDeployment0000000000001',
        name: 'ada-blog',
        url: 'ada-blog-abc123def-ada.vercel.app',
        meta: {},
      },
      links: {
        deployment: 'https://vercel.com/ada/ada-blog/TestDeployment0000000000001',
        project: 'https://vercel.com/ada/ada-blog',
      },
      target: null,
      project: { id: projectId },
      plan: 'hobby',
      regions: ['iad1'],
    },
  })

const post = async (address: string, body: string, headers: Record<string, string> = {}) => {
  const res = await fetch(address, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

const runsOf = async (subscriptionId: string): Promise<any[]> => {
  const res = await api.get(`/v1/runs?subscription_id=${subscriptionId}&limit=100`)
  expect(res.status, res.text).toBe(200)
  return res.body.runs
}

const eventStored = async (dedupeKey: string) =>
  (
    await stack.services.store.db
      .selectFrom('events')
      .select('id')
      .where('dedupe_key', '=', dedupeKey)
      .execute()
  ).length

const settled = async () => {
  const res = await control.call('GET', '/deliveries?wait=true&timeout_ms=10000')
  expect(res.body.settled).toBe(true)
  return res.body.deliveries as Array<{
    webhookId: string
    type: string
    state: string
    attempts: Array<{ status: number | null }>
    payload: any
  }>
}

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  api = client(stack, stack.apiKey)
  control = vercelControl(stack)
  integration = (await connectVercel(stack)).integrationId!
  adaToken = (await control.call('POST', '/tokens', { user: 'ada' })).body.token
  await control.call('PUT', '/deliveries/settings', { retry_delays_ms: [20, 40, 80] })
  const agent = await api.post('/v1/agents', {
    name: 'Deploy watcher',
    description: 'Looks at deployments',
    inputs: [
      { name: 'url', type: 'string', required: true },
      { name: 'state', type: 'string' },
      { name: 'deployment_id', type: 'string' },
    ],
    kind: 'steps',
    steps: [{ key: 'list', tool: 'vercel.list_deployments', integration, input: { limit: 1 } }],
    output: {},
  })
  expect(agent.status, agent.text).toBe(201)
  agentId = agent.body.id
})
afterAll(async () => stack?.close())

describe('the platform declares its triggers', () => {
  it('has the three, unmanaged webhooks, samples that fit their schemas and config errors naming the field', () => {
    expect(vercel.triggers.map((t) => t.id)).toEqual([
      'vercel.deployment_started',
      'vercel.deployment_succeeded',
      'vercel.deployment_failed',
    ])
    expect(vercel.webhooks?.managed).toBe(false)
    for (const t of vercel.triggers) {
      expect(t.mode).toBe('instant')
      expect(t.event.safeParse(t.sample).success, t.id).toBe(true)
      const body = t.sampleBody!(t.config.parse({}))
      const [candidate] = vercelWebhooks.parse({
        rawBody: Buffer.from(JSON.stringify(body)),
        headers: {},
        callbackUrl: '',
      })
      expect(t.match!(candidate!, t.config.parse({})), t.id).not.toBeNull()
      // Each sample body is a new event: it is never taken for a duplicate of the last one.
      expect((t.sampleBody!({}) as { id: string }).id).not.toBe((body as { id: string }).id)
    }
    expect(trigger('vercel.deployment_failed').sample).toMatchObject({
      event: { type: 'deployment.error' },
      deployment: { state: 'ERROR', url: expect.stringMatching(/^https:\/\//) },
    })
    const bad = trigger('vercel.deployment_started').config.safeParse({ project_ids: ['ada-blog'] })
    expect(bad.error?.issues[0]).toMatchObject({
      path: ['project_ids', 0],
      message: expect.stringMatching(/project id/),
    })
  })

  it.each([
    ['deployment completed', 'vercel.deployment_succeeded'],
    ['completed', 'vercel.deployment_succeeded'],
    ['deployment ready', 'vercel.deployment_succeeded'],
    ['deployment error', 'vercel.deployment_failed'],
    ['deployment created', 'vercel.deployment_started'],
  ])('searching triggers for the words people use, %j, finds %s first', async (q, id) => {
    const res = await api.get(`/v1/triggers?q=${encodeURIComponent(q)}`)
    expect(res.status).toBe(200)
    expect(res.body.triggers[0]?.id).toBe(id)
  })

  it('the catalogue says which event to tick in Vercel and that a sample can be sent', async () => {
    const res = await api.get('/v1/triggers?q=vercel')
    const entries = res.body.triggers.filter((t: { platform: string }) => t.platform === 'vercel')
    expect(
      Object.fromEntries(entries.map((t: { id: string; manualWebhook: unknown }) => [t.id, t.manualWebhook])),
    ).toEqual({
      'vercel.deployment_started': { events: ['deployment.created'], sendSample: true },
      'vercel.deployment_succeeded': { events: ['deployment.succeeded'], sendSample: true },
      'vercel.deployment_failed': { events: ['deployment.error'], sendSample: true },
    })
    expect((await api.get('/v1/triggers/trello.new_card')).body.manualWebhook).toBeNull()
  })

  it("offers the account's projects for project_ids", async () => {
    const res = await api.get(
      `/v1/triggers/vercel.deployment_succeeded/options/project_ids?integration=${integration}`,
    )
    expect(res.status, res.text).toBe(200)
    expect(res.body.options).toContainEqual(
      expect.objectContaining({ value: VERCEL.personalProject.id, label: 'ada-blog' }),
    )
  })

  it('a bad config is a 400 naming the field', async () => {
    const res = await api.post(`/v1/agents/${agentId}/subscriptions`, {
      trigger: 'vercel.deployment_started',
      integration,
      config: { project_ids: ['nope'] },
      mapping: MAPPING,
    })
    expect(res.status).toBe(400)
    expect(res.body.errors[0].field).toBe('config.project_ids[0]')
    const unknown = await api.post(`/v1/agents/${agentId}/subscriptions`, {
      trigger: 'vercel.deployment_started',
      integration,
      config: { project: 'x' },
      mapping: MAPPING,
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body.errors).toEqual([
      { field: 'config.project', message: 'is not a known field; the fields are project_ids' },
    ])
  })
})

describe('signature (hex HMAC-SHA1 of the raw body with the pasted secret)', () => {
  it('passes the fixed vector and refuses its SHA-256 twin, in the facet', async () => {
    const rawBody = Buffer.from('{"id":"evt_1","type":"deployment.created"}')
    const delivery = (sig?: string) => ({
      rawBody,
      headers: sig ? { 'x-vercel-signature': sig } : {},
      callbackUrl: 'http://x/hooks/t',
    })
    expect(
      await vercelWebhooks.verify(delivery('281492badc5226086864e8764982e5465c704b23'), {
        hookSecret: 'whsec_test_vector',
      }),
    ).toBe('valid')
    expect(
      await vercelWebhooks.verify(delivery('281492BADC5226086864E8764982E5465C704B23'), {
        hookSecret: 'whsec_test_vector',
      }),
    ).toBe('valid')
    const sha256 = createHmac('sha256', 'whsec_test_vector').update(rawBody).digest('hex')
    expect(await vercelWebhooks.verify(delivery(sha256), { hookSecret: 'whsec_test_vector' })).toBe('invalid')
    expect(
      await vercelWebhooks.verify(delivery(createHash('sha1').update(rawBody).digest('hex')), {
        hookSecret: 'whsec_test_vector',
      }),
    ).toBe('invalid')
    // The integration's client secret is not the webhook's: without the pasted one, nothing is verifiable.
    expect(
      await vercelWebhooks.verify(delivery('281492badc5226086864e8764982e5465c704b23'), {
        appSecret: 'whsec_test_vector',
      }),
    ).toBe('unverifiable')
  })

  it('over HTTP: the right SHA-1 starts a run; SHA-256, a wrong secret, no header or a changed body are 401 and store nothing', async () => {
    const secret = 'whsec_right_secret_1'
    const sub = await subscribe('vercel.deployment_started', secret)
    const body = event('deployment.created', eid('evt_SignatureVectorRight0001'))
    for (const [label, raw, headers] of [
      ['sha-256', body, { 'x-vercel-signature': createHmac('sha256', secret).update(body).digest('hex') }],
      ['wrong secret', body, { 'x-vercel-signature': sha1('whsec_wrong', body) }],
      ['no header', body, {}],
      [
        'body changed',
        body.replace('ada-blog-abc123def', 'evil-abc123def'),
        { 'x-vercel-signature': sha1(secret, body) },
      ],
    ] as Array<[string, string, Record<string, string>]>) {
      const res = await post(sub.webhook_address, raw, headers)
      expect(res.status, label).toBe(401)
      expect(JSON.stringify(res.body)).not.toContain(secret)
    }
    expect(await eventStored(eid('evt_SignatureVectorRight0001'))).toBe(0)
    expect(await runsOf(sub.id)).toEqual([])
    const ok = await post(sub.webhook_address, body, { 'x-vercel-signature': sha1(secret, body) })
    expect(ok).toEqual({ status: 200, body: { accepted: 1, duplicates: 0 } })
    const [run] = await runsOf(sub.id)
    expect(run).toMatchObject({
      trigger_id: 'vercel.deployment_started',
      inputs: {
        url: 'https://ada-blog-abc123def-ada.vercel.app',
        state: 'QUEUED',
        deployment_id: 'dpl_TestDeployment0000000000001',
      },
    })
    expect(run.event).toMatchObject({
      event: { id: eid('evt_SignatureVectorRight0001'), type: 'deployment.created' },
      project: { id: VERCEL.personalProject.id, name: 'ada-blog' },
      creator: { id: VERCEL.user.id },
      team: null,
      target: null,
    })
  })

  it('acknowledged only when durable: right after the 200, the event and its run are in the database', async () => {
    const secret = 'whsec_durable_1'
    const sub = await subscribe('vercel.deployment_started', secret)
    const db = stack.services.store.db
    for (let i = 0; i < 3; i++) {
      const id = eid(`evt_DurableBeforeAnswer000${i}`)
      const body = event('deployment.created', id)
      const res = await post(sub.webhook_address, body, { 'x-vercel-signature': sha1(secret, body) })
      expect(res).toEqual({ status: 200, body: { accepted: 1, duplicates: 0 } })
      const stored = await db
        .selectFrom('events')
        .select('id')
        .where('dedupe_key', '=', id)
        .executeTakeFirst()
      expect(stored, `event ${i}`).toBeDefined()
      const run = await db
        .selectFrom('runs')
        .select('id')
        .where('event_id', '=', stored!.id)
        .where('subscription_id', '=', sub.id)
        .executeTakeFirst()
      expect(run, `run of event ${i}`).toBeDefined()
    }
  })

  // Issue 22 §9: a mapping that failed on every delivery woke the run worker for every delivery,
  // and each wake was a claim statement, on PGlite a turn of the service's own thread.
  it('a delivery whose run fails at the mapping queues nothing and wakes no run worker; one whose run waits does', async () => {
    const secret = 'whsec_wakes_1'
    const failing = await subscribe('vercel.deployment_started', secret, {}, { url: '{{ $number("x") }}' })
    const mapped = await subscribe('vercel.deployment_started', secret)
    const runs = stack.services.runs
    const onReady = runs.onReady
    const wakes: Array<string | undefined> = []
    runs.onReady = (owner) => {
      wakes.push(owner)
      onReady(owner)
    }
    try {
      const deliver = async (address: string, name: string) => {
        const body = event('deployment.created', eid(name))
        const res = await post(address, body, { 'x-vercel-signature': sha1(secret, body) })
        expect(res).toEqual({ status: 200, body: { accepted: 1, duplicates: 0 } })
      }
      await deliver(failing.webhook_address, 'evt_WakesNoWorker0001')
      expect((await runsOf(failing.id)).map((r) => [r.status, r.error?.code])).toEqual([
        ['failed', 'mapping_failed'],
      ])
      expect(wakes).toEqual([])
      await deliver(mapped.webhook_address, 'evt_WakesTheWorker0001')
      expect(wakes).toEqual([stack.userId])
    } finally {
      runs.onReady = onReady
    }
  })

  it('without a secret every delivery is refused, and send-sample says to give the secret first', async () => {
    const sub = await subscribe('vercel.deployment_succeeded')
    expect(sub.webhook_secret_set).toBe(false)
    const body = event('deployment.succeeded', eid('evt_NoSecretDelivery00000001'))
    for (const headers of [
      {},
      { 'x-vercel-signature': sha1('', body) },
      { 'x-vercel-signature': sha1('anything', body) },
    ] as Array<Record<string, string>>) {
      expect((await post(sub.webhook_address, body, headers)).status).toBe(401)
    }
    expect(await eventStored(eid('evt_NoSecretDelivery00000001'))).toBe(0)
    const sample = await api.post(`/v1/subscriptions/${sub.id}/send-sample`)
    expect(sample.status).toBe(409)
    expect(sample.body.detail ?? sample.body.message ?? sample.text).toMatch(/webhook_secret/)
    // Once the secret is pasted, the same subscription accepts signed deliveries.
    expect(
      (await api.call('PATCH', `/v1/subscriptions/${sub.id}`, { webhook_secret: 'whsec_pasted_later' })).body
        .webhook_secret_set,
    ).toBe(true)
    expect(
      (await post(sub.webhook_address, body, { 'x-vercel-signature': sha1('whsec_pasted_later', body) }))
        .status,
    ).toBe(200)
  })

  it('a replaced secret counts at once: right after the change the old one is refused and the new one accepted', async () => {
    const sub = await subscribe('vercel.deployment_failed', 'whsec_before_rotation')
    const first = event('deployment.error', eid('evt_BeforeRotation00000001'))
    // A delivery first, so the intake holds this webhook's route (and its opened secret) in memory.
    expect(
      (await post(sub.webhook_address, first, { 'x-vercel-signature': sha1('whsec_before_rotation', first) }))
        .status,
    ).toBe(200)
    expect(
      (await api.call('PATCH', `/v1/subscriptions/${sub.id}`, { webhook_secret: 'whsec_after_rotation' }))
        .status,
    ).toBe(200)
    const next = event('deployment.error', eid('evt_AfterRotation000000001'))
    expect(
      (await post(sub.webhook_address, next, { 'x-vercel-signature': sha1('whsec_before_rotation', next) }))
        .status,
    ).toBe(401)
    expect(await eventStored(eid('evt_AfterRotation000000001'))).toBe(0)
    expect(
      (await post(sub.webhook_address, next, { 'x-vercel-signature': sha1('whsec_after_rotation', next) }))
        .status,
    ).toBe(200)
  })
})

describe('addresses', () => {
  it("each subscription has its own unguessable address; another subscription's address does not start this one", async () => {
    const secret = 'whsec_shared_by_two'
    const a = await subscribe('vercel.deployment_started', secret)
    const b = await subscribe('vercel.deployment_started', secret)
    for (const s of [a, b])
      expect(s.webhook_address).toMatch(new RegExp(`^${stack.url}/hooks/[A-Za-z0-9_-]{32}$`))
    expect(a.webhook_address).not.toBe(b.webhook_address)
    const body = event('deployment.created', eid('evt_OnlyForSubscriptionB0001'))
    expect((await post(b.webhook_address, body, { 'x-vercel-signature': sha1(secret, body) })).body).toEqual({
      accepted: 1,
      duplicates: 0,
    })
    expect(await runsOf(a.id)).toEqual([])
    expect(await runsOf(b.id)).toHaveLength(1)
    const guessed = a.webhook_address.replace(/.{4}$/, 'AAAA')
    expect((await post(guessed, body, { 'x-vercel-signature': sha1(secret, body) })).status).toBe(404)
  })

  it("a project filter lets other projects' deployments through to no run", async () => {
    const secret = 'whsec_filtered'
    const sub = await subscribe('vercel.deployment_started', secret, { project_ids: [VERCEL.teamProject.id] })
    const other = event('deployment.created', eid('evt_OtherProject00000000001'))
    expect(
      (await post(sub.webhook_address, other, { 'x-vercel-signature': sha1(secret, other) })).body,
    ).toEqual({ accepted: 0, duplicates: 0 })
    const mine = event('deployment.created', eid('evt_ChosenProject0000000001'), VERCEL.teamProject.id)
    expect(
      (await post(sub.webhook_address, mine, { 'x-vercel-signature': sha1(secret, mine) })).body,
    ).toEqual({ accepted: 1, duplicates: 0 })
  })
})

describe('deduplication on the event id', () => {
  it('three concurrent copies of one event start one run', async () => {
    const secret = 'whsec_dedupe'
    const sub = await subscribe('vercel.deployment_failed', secret)
    const body = event('deployment.error', eid('evt_DeliveredThreeTimes0001'))
    const answers = await Promise.all(
      [1, 2, 3].map(() => post(sub.webhook_address, body, { 'x-vercel-signature': sha1(secret, body) })),
    )
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    expect(answers.reduce((n, a) => n + a.body.accepted, 0)).toBe(1)
    expect(answers.reduce((n, a) => n + a.body.duplicates, 0)).toBe(2)
    const runs = await runsOf(sub.id)
    expect(runs).toHaveLength(1)
    expect(runs[0].inputs.state).toBe('ERROR')
  })
})

describe('send sample event', () => {
  it('signs a realistic event with the stored secret, posts it through the real intake and shows the mapped inputs, before any deployment', async () => {
    const sub = await subscribe('vercel.deployment_succeeded', 'whsec_for_the_sample', {
      project_ids: [VERCEL.personalProject.id],
    })
    const first = await api.post(`/v1/subscriptions/${sub.id}/send-sample`)
    expect(first.status, first.text).toBe(200)
    expect(first.body).toMatchObject({
      status: 200,
      answer: { accepted: 1, duplicates: 0 },
      event_ids: [expect.stringMatching(/^evt_/)],
    })
    expect(first.body.runs).toHaveLength(1)
    expect(first.body.runs[0]).toMatchObject({
      id: expect.any(String),
      inputs: {
        url: expect.stringMatching(/^https:\/\/.+\.vercel\.app$/),
        state: 'READY',
        deployment_id: expect.stringMatching(/^dpl_/),
      },
      event: { event: { type: 'deployment.succeeded' }, project: { id: VERCEL.personalProject.id } },
    })
    expect(JSON.stringify(first.body)).not.toContain('whsec_for_the_sample')
    // A second sample is a new event, not a duplicate.
    const second = await api.post(`/v1/subscriptions/${sub.id}/send-sample`)
    expect(second.body.answer).toEqual({ accepted: 1, duplicates: 0 })
    const runs = await runsOf(sub.id)
    expect(runs).toHaveLength(2)
    // Marked as tests on the runs list: nothing happened on Vercel.
    expect(runs.map((r) => r.test)).toEqual([true, true])
    // Another user's subscription is none; an inactive one starts nothing and says so.
    const other = client(stack, (await stack.createUser()).apiKey)
    expect((await other.post(`/v1/subscriptions/${sub.id}/send-sample`)).status).toBe(404)
    await api.post(`/v1/subscriptions/${sub.id}/deactivate`)
    const inactive = await api.post(`/v1/subscriptions/${sub.id}/send-sample`)
    expect(inactive.status).toBe(409)
    expect(inactive.text).toMatch(/activate/)
  })
})

describe("the Vercel sandbox delivers to the subscriptions' addresses", () => {
  it('a deployment created, then succeeding, then another failing, fires the right trigger each time', async () => {
    const started = await subscribe('vercel.deployment_started')
    const succeeded = await subscribe('vercel.deployment_succeeded')
    const failed = await subscribe('vercel.deployment_failed')

    // Two webhooks through Vercel's API, as a script would add them; the secret comes back once.
    const viaApi = async (address: string, events: string[]) => {
      const res = await fetch(`${stack.sandboxUrl}/vercel/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adaToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: address, events, project_ids: [VERCEL.personalProject.id] }),
      })
      expect(res.status).toBe(200)
      return (await res.json()) as { id: string; secret: string }
    }
    const hookStarted = await viaApi(started.webhook_address, ['deployment.created'])
    const hookSucceeded = await viaApi(succeeded.webhook_address, ['deployment.succeeded'])

    // The third as a person does it: the project's settings page, the events ticked, the secret shown once.
    const pageUrl = `${stack.sandboxUrl}/vercel/projects/ada-blog/settings/webhooks`
    const login = parseForm(await (await fetch(pageUrl)).text(), pageUrl)
    const signedIn = await fetch(login.action, {
      method: 'POST',
      body: new URLSearchParams({ ...login.fields, email: VERCEL.user.email, password: VERCEL.password }),
    })
    const settings = parseForm(await signedIn.text(), login.action)
    const form = new URLSearchParams({ ...settings.fields, url: failed.webhook_address })
    form.append('events', 'deployment.error')
    const createdPage = await (await fetch(settings.action, { method: 'POST', body: form })).text()
    const shownSecret = /<code id="webhook-secret">([^<]+)<\/code>/.exec(createdPage)?.[1]
    expect(shownSecret).toBeTruthy()

    // The user pastes each secret into its trigger.
    for (const [sub, secret] of [
      [started, hookStarted.secret],
      [succeeded, hookSucceeded.secret],
      [failed, shownSecret!],
    ] as const) {
      const patched = await api.call('PATCH', `/v1/subscriptions/${sub.id}`, { webhook_secret: secret })
      expect(patched.body.webhook_secret_set).toBe(true)
    }
    await control.call('DELETE', '/deliveries')

    // A deployment is created, then builds and succeeds on the sandbox clock.
    const created = await fetch(`${stack.sandboxUrl}/vercel/v13/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adaToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ada-blog', target: 'production' }),
    })
    const deployment = (await created.json()) as { id: string; url: string }
    await control.advanceClock(10_000)
    // Another is made to fail (the sandbox's control API: its build ends in ERROR).
    const failing = (
      await control.call('POST', '/deployments', {
        project: 'ada-blog',
        owner: 'ada',
        meta: { sandboxOutcome: 'error' },
      })
    ).body as { id: string }
    await control.advanceClock(10_000)
    const deliveries = await settled()
    expect(deliveries.every((d) => d.state === 'delivered' && d.attempts.at(-1)!.status === 200)).toBe(true)

    const startedRuns = await runsOf(started.id)
    expect(startedRuns.map((r) => r.inputs.deployment_id).sort()).toEqual([deployment.id, failing.id].sort())
    expect(startedRuns.every((r) => r.inputs.state === 'QUEUED')).toBe(true)
    const succeededRuns = await runsOf(succeeded.id)
    expect(succeededRuns.map((r) => r.inputs)).toEqual([
      { url: `https://${deployment.url}`, state: 'READY', deployment_id: deployment.id },
    ])
    expect(succeededRuns[0].event).toMatchObject({
      target: 'production',
      project: { id: VERCEL.personalProject.id, name: 'ada-blog' },
      creator: { id: VERCEL.user.id },
      links: { deployment: expect.stringContaining(deployment.id.slice(4)) },
    })
    const failedRuns = await runsOf(failed.id)
    expect(failedRuns.map((r) => r.inputs.deployment_id)).toEqual([failing.id])
    expect(failedRuns[0].inputs.state).toBe('ERROR')
  })

  it('a delivery the intake refuses (no secret yet) is retried by the sandbox, then recorded as failed', async () => {
    const sub = await subscribe('vercel.deployment_started')
    const res = await fetch(`${stack.sandboxUrl}/vercel/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adaToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: sub.webhook_address,
        events: ['deployment.created'],
        project_ids: [VERCEL.personalProject.id],
      }),
    })
    const hook = (await res.json()) as { id: string }
    await control.call('DELETE', '/deliveries')
    await fetch(`${stack.sandboxUrl}/vercel/v13/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adaToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ada-blog' }),
    })
    const mine = (await settled()).find((d) => d.webhookId === hook.id)!
    expect(mine.state).toBe('failed')
    expect(mine.attempts.map((a) => a.status)).toEqual([401, 401, 401, 401])
    expect(await runsOf(sub.id)).toEqual([])
  })
})

describe('the CLI for a webhook you set up', () => {
  it('saves the secret and sends the sample, readable and as --json', async () => {
    const { execFile } = await import('node:child_process')
    const { promisify } = await import('node:util')
    const path = await import('node:path')
    // No kill timer: the CLI compiles its TypeScript through tsx at every start, which took 23 s for
    // `--help` on this machine under load, and a 60 s kill here was what failed `subscriptions
    // secret` once in five runs of the whole suite, with nothing printed. A failure now says how the
    // CLI ended and what it printed.
    const run = (...args: string[]) =>
      promisify(execFile)(
        process.execPath,
        [path.resolve(import.meta.dirname, '../bin/switchyard.js'), ...args],
        {
          env: { ...process.env, SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: stack.apiKey },
        },
      ).catch((err: { code?: number; signal?: string; stdout?: string; stderr?: string }) => {
        throw new Error(
          `switchyard ${args.join(' ')} ended with ${err.signal ? `signal ${err.signal}` : `exit code ${err.code}`}\nstdout: ${err.stdout}\nstderr: ${err.stderr}`,
        )
      })
    const sub = await subscribe('vercel.deployment_failed')
    const saved = await run('subscriptions', 'secret', sub.id, '--secret', 'whsec_from_the_cli')
    expect(saved.stdout).toMatch(/Saved the signing secret/)
    expect(saved.stdout).not.toContain('whsec_from_the_cli')
    const sent = JSON.parse((await run('subscriptions', 'send-sample', sub.id, '--json')).stdout)
    expect(sent).toMatchObject({ status: 200, answer: { accepted: 1 } })
    expect(sent.runs[0].inputs.state).toBe('ERROR')
    expect((await run('subscriptions', 'send-sample', sub.id)).stdout).toMatch(
      /answered 200; 1 run\(s\) started/,
    )
    // Four CLI starts, each a tsx compile: a backstop for a loaded machine, not a timing claim.
  }, 600_000)
})
