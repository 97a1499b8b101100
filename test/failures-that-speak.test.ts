import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'
import {
  CARD_MAPPING,
  commentingAgent,
  connectAda,
  createAgent,
  deliveriesSettled,
  freshBoard,
  hookOf,
  personCreatesCard,
  runsOf,
  subscribe as subscribeTrello,
  waitFor,
} from './helpers/trello-engine.ts'
import { connectVercel, VERCEL } from './helpers/vercel.ts'

// When a trigger does not fire, the product says why (issue 22, §5): refused deliveries are counted
// with what to do, the loop guard's skips are counted with the option that changes them, and each
// recent delivery is listed with its outcome per subscription and per webhook. Over real HTTP, on
// PGlite (or TEST_DATABASE_URL).
let stack: TestStack
let api: ReturnType<typeof client>

const sha1 = (secret: string, body: string) => createHmac('sha1', secret).update(body).digest('hex')
const RUN = Math.random().toString(36).slice(2, 10)
/** A deployment.created event as Vercel sends it. */
const deployment = (id: string, projectId: string = VERCEL.personalProject.id) =>
  JSON.stringify({
    id: `${id}${RUN}`,
    type: 'deployment.created',
    createdAt: 1772443800000,
    region: 'iad1',
    payload: {
      team: null,
      user: { id: VERCEL.user.id },
      deployment: {
        id: 'dpl_Speak000000000000000000001',
        name: 'ada-blog',
        url: 'ada-blog-x.vercel.app',
        meta: {},
      },
      links: { deployment: 'https://vercel.com/ada/ada-blog/x', project: 'https://vercel.com/ada/ada-blog' },
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
  return { status: res.status, text: await res.text() }
}

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  api = client(stack, stack.apiKey)
})
afterAll(async () => stack?.close())

describe('a Vercel trigger with the wrong secret pasted', () => {
  let sub: { id: string; webhook_address: string }
  const realSecret = 'whsec_the_one_vercel_shows'

  beforeAll(async () => {
    const integration = (await connectVercel(stack)).integrationId!
    const agent = await createAgent(api, {
      name: `Deploy watcher ${RUN}`,
      inputs: [{ name: 'url', type: 'string', required: true }],
      kind: 'steps',
      steps: [{ key: 'list', tool: 'vercel.list_deployments', integration, input: { limit: 1 } }],
      output: {},
    })
    const created = await api.post(`/v1/agents/${agent}/subscriptions`, {
      trigger: 'vercel.deployment_started',
      integration,
      config: { project_ids: [VERCEL.personalProject.id] },
      mapping: { url: '{{ deployment.url }}' },
      webhook_secret: 'whsec_pasted_wrong',
    })
    expect(created.status, created.text).toBe(201)
    const active = await api.post(`/v1/subscriptions/${created.body.id}/activate`)
    expect(active.status, active.text).toBe(200)
    sub = active.body
  })

  it('health counts the refused deliveries, says why and what to do, instead of "no event yet"', async () => {
    for (let i = 0; i < 4; i++) {
      const body = deployment(`evt_Refused${i}`)
      const res = await post(sub.webhook_address, body, { 'x-vercel-signature': sha1(realSecret, body) })
      expect(res.status).toBe(401)
      expect(res.text).toMatch(/paste the webhook's secret again/)
    }
    const health = await api.get(`/v1/subscriptions/${sub.id}/health`)
    expect(health.status, health.text).toBe(200)
    expect(health.body.deliveries).toMatchObject({
      counts: { refused: 4, accepted: 0 },
      refused: { count: 4, reason: expect.stringMatching(/paste the webhook's secret again/) },
      skipped: null,
    })
    expect(JSON.stringify(health.body)).not.toContain('whsec_pasted_wrong')
    // The one verdict says it, in the words every surface shows (the web renders these reasons as they are).
    expect(health.body.verdict).toBe('failing')
    expect(health.body.reasons[0]).toMatchObject({
      code: 'deliveries_refused',
      message: expect.stringMatching(
        /^4 deliveries from Vercel were refused.*paste the webhook's secret again/,
      ),
    })
  })

  it('the events list shows each delivery with its outcome: refused, accepted, duplicate, unmatched', async () => {
    const fixed = await api.call('PATCH', `/v1/subscriptions/${sub.id}`, { webhook_secret: realSecret })
    expect(fixed.status, fixed.text).toBe(200)
    const good = deployment('evt_Accepted')
    const signed = { 'x-vercel-signature': sha1(realSecret, good) }
    expect((await post(sub.webhook_address, good, signed)).status).toBe(200)
    expect((await post(sub.webhook_address, good, signed)).status).toBe(200)
    const elsewhere = deployment('evt_OtherProject', 'prj_SomebodyElse000000000000')
    expect(
      (await post(sub.webhook_address, elsewhere, { 'x-vercel-signature': sha1(realSecret, elsewhere) }))
        .status,
    ).toBe(200)

    const res = await api.get(`/v1/subscriptions/${sub.id}/events`)
    expect(res.status, res.text).toBe(200)
    const events: any[] = res.body.events
    expect(events.map((e) => e.outcome)).toEqual([
      'unmatched',
      'duplicate',
      'accepted',
      'refused',
      'refused',
      'refused',
      'refused',
    ])
    const [run] = (await api.get(`/v1/runs?subscription_id=${sub.id}`)).body.runs
    expect(events[2]).toMatchObject({
      via: 'webhook',
      event_type: 'deployment.created',
      event_id: `evt_Accepted${RUN}`,
      run_id: run.id,
    })
    expect(events[1].reason).toMatch(/received before/)
    expect(events[0].reason).toMatch(/does not fire/)
    expect(events[3].reason).toMatch(/paste the webhook's secret again/)
    // A later accepted event: health no longer leads with the old refusals, and still counts them.
    const health = (await api.get(`/v1/subscriptions/${sub.id}/health`)).body
    expect(health.deliveries.counts).toMatchObject({ accepted: 1, duplicate: 1, unmatched: 1, refused: 4 })

    // The per-webhook list, and its bounds.
    const hookId = health.webhooks[0].id
    const byHook = await api.get(`/v1/webhooks/${hookId}/events?limit=2`)
    expect(byHook.status, byHook.text).toBe(200)
    expect(byHook.body.events).toHaveLength(2)
    expect(byHook.body.events[1].subscriptions).toEqual([
      { subscription_id: sub.id, outcome: 'duplicate', reason: expect.any(String) },
    ])
    for (const limit of ['0', '101', 'ten', '-1'])
      expect((await api.get(`/v1/subscriptions/${sub.id}/events?limit=${limit}`)).status, limit).toBe(400)
    // Another user's subscription and webhook are none.
    const other = client(stack, (await stack.createUser()).apiKey)
    expect((await other.get(`/v1/subscriptions/${sub.id}/events`)).status).toBe(404)
    expect((await other.get(`/v1/webhooks/${hookId}/events`)).status).toBe(404)
  })

  it('Send sample event says Switchyard signed it, and that it proves nothing about the platform’s webhook', async () => {
    const res = await api.post(`/v1/subscriptions/${sub.id}/send-sample`)
    expect(res.status, res.text).toBe(200)
    expect(res.body).toMatchObject({
      status: 200,
      signed_by: 'switchyard',
      message: expect.stringMatching(
        /^Switchyard signed this sample.*not Vercel.*does not show that Vercel's webhook is set up/,
      ),
    })
  })
})

describe('a Trello trigger', () => {
  it("counts the loop guard's skips and names the option; every platform's webhook shows its address", async () => {
    const ada = await connectAda(stack)
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    const sub = await subscribeTrello(api, agent, {
      trigger: 'trello.new_card',
      integration: ada,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    await personCreatesCard(stack, board.lists[0]!.id, 'Made through the integration', 'ada')
    await deliveriesSettled(stack)
    const health = await waitFor('the skip in health', async () => {
      const h = (await api.get(`/v1/subscriptions/${sub.id}/health`)).body
      return h.deliveries?.skipped ? h : undefined
    })
    expect(health.deliveries.skipped).toMatchObject({
      count: 1,
      option: 'start_on_own_changes',
      reason: expect.stringMatching(/own account.*start_on_own_changes/),
    })
    expect(health.verdict).toBe('warning')
    expect(health.reasons).toContainEqual(
      expect.objectContaining({ code: 'events_skipped', message: expect.stringMatching(/loop guard.*tick/) }),
    )
    expect(await runsOf(stack, sub.id)).toHaveLength(0)
    const hook = await hookOf(stack, sub.id)
    expect(health.webhooks[0]).toMatchObject({ id: hook.id, address: hook.callbackUrl })
    const events = (await api.get(`/v1/subscriptions/${sub.id}/events`)).body.events
    expect(events[0]).toMatchObject({ outcome: 'skipped', event_type: 'createCard', webhook_id: hook.id })
  })

  it('Poll now makes an active polled trigger due; the poll shows in its events and health', async () => {
    const ada = await connectAda(stack)
    const board = await freshBoard(stack)
    const agent = await createAgent(api, commentingAgent(ada))
    const sub = await subscribeTrello(api, agent, {
      trigger: 'trello.card_due_date_reminder',
      integration: ada,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    const first = await waitFor('the first poll', async () => {
      const h = (await api.get(`/v1/subscriptions/${sub.id}/health`)).body
      return h.deliveries?.last_poll_at ? h : undefined
    })
    const polled = await api.post(`/v1/subscriptions/${sub.id}/poll`)
    expect(polled.status, polled.text).toBe(200)
    await waitFor('a second poll', async () => {
      const events = (await api.get(`/v1/subscriptions/${sub.id}/events`)).body.events
      return events.filter((e: any) => e.via === 'poll').length >= 2
    })
    const events = (await api.get(`/v1/subscriptions/${sub.id}/events`)).body.events
    expect(events.at(-1)).toMatchObject({
      via: 'poll',
      outcome: 'polled',
      reason: expect.stringMatching(/first poll/),
    })
    expect(events[0]).toMatchObject({ via: 'poll', outcome: 'polled', reason: 'nothing new' })
    expect(first.polled).toBe(true)
    // A webhook trigger is not polled, and an inactive one neither.
    await api.post(`/v1/subscriptions/${sub.id}/deactivate`)
    expect((await api.post(`/v1/subscriptions/${sub.id}/poll`)).status).toBe(409)
  })
})
