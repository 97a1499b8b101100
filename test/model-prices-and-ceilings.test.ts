import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRICE_TABLE_VERSION } from '../src/core/models/prices.ts'
import { connectZendesk } from './helpers/connect.ts'
import { scriptedModel, settled, waitForRun } from './helpers/model-agents.ts'
import { client } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// docs/model-agents.md, "Budget": an admin overrides the shipped price table, in versions that
// runs name, and sets per-plan budget ceilings that an agent's author cannot raise. Over real HTTP
// against the model sandbox and the Zendesk sandbox.
let stack: TestStack
let admin: ReturnType<typeof client>

beforeAll(async () => {
  stack = await startTestStack({
    databaseUrl: process.env.TEST_DATABASE_URL,
    backoff: { stepMs: [20, 20, 20] },
  })
  admin = client(stack, stack.apiKey)
})
afterAll(async () => {
  await stack?.close()
})

const patchPrices = (api: ReturnType<typeof client>, body: unknown) =>
  api.call('PATCH', '/v1/model-prices', body)

async function modelAgent(
  api: ReturnType<typeof client>,
  connection: string,
  extra: Record<string, unknown> = {},
) {
  return api.post('/v1/agents', {
    name: `priced ${Math.random().toString(36).slice(2)}`,
    kind: 'model',
    instructions: 'Answer.',
    model: { connection, name: 'sandbox-model' },
    ...extra,
  })
}

describe('an admin overrides the price table, in versions runs name', () => {
  it('a run counts with the admin’s price and names the version; the shipped table stays readable', async () => {
    const member = await stack.createUser('enterprise')
    const api = client(stack, member.apiKey)
    const before = (await api.get('/v1/model-prices')).body
    expect(before.shipped_version).toBe(PRICE_TABLE_VERSION)
    const changed = await patchPrices(admin, {
      prices: {
        'sandbox-model': { input_per_mtok: 1000, output_per_mtok: 3000 },
        'my-llama': { input_per_mtok: 0, output_per_mtok: 0.5 },
      },
    })
    expect(changed.status, changed.text).toBe(200)
    const version = changed.body.override_version
    expect(version).toBe(before.override_version + 1)
    expect(changed.body.version).toBe(`${PRICE_TABLE_VERSION}+${version}`)
    expect(changed.body.prices).toContainEqual({
      model: 'sandbox-model',
      input_per_mtok: 1000,
      output_per_mtok: 3000,
      source: 'admin',
    })
    expect(changed.body.prices).toContainEqual({
      model: 'my-llama',
      input_per_mtok: 0,
      output_per_mtok: 0.5,
      source: 'admin',
    })
    expect(changed.body.prices).toContainEqual(
      expect.objectContaining({ model: 'gpt-4o', source: 'shipped' }),
    )

    const model = await scriptedModel(stack, member.apiKey, [{ text: 'Done.' }])
    const saved = await modelAgent(api, model.connectionId)
    expect(saved.status, saved.text).toBe(201)
    const started = await api.post(`/v1/agents/${saved.body.id}/runs`, { inputs: {} })
    const run = await waitForRun(api, started.body.id, settled)
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    const call = run.timeline[0].output
    const [logged] = await model.calls()
    const expected = (logged.usage.input_tokens * 1000 + logged.usage.output_tokens * 3000) / 1e6
    expect(call.price_table).toBe(`${PRICE_TABLE_VERSION}+${version}`)
    expect(call.cost_usd).toBeCloseTo(expected, 8)

    // Going back to the shipped price is a new version; the old one still reads as it was.
    const back = await patchPrices(admin, { prices: { 'sandbox-model': null } })
    expect(back.body.override_version).toBe(version + 1)
    expect(back.body.prices).toContainEqual({
      model: 'sandbox-model',
      input_per_mtok: 1,
      output_per_mtok: 2,
      source: 'shipped',
    })
    const old = await api.get(`/v1/model-prices?version=${version}`)
    expect(old.body.prices).toContainEqual({
      model: 'sandbox-model',
      input_per_mtok: 1000,
      output_per_mtok: 3000,
      source: 'admin',
    })
    expect((await api.get(`/v1/model-prices?version=${version + 99}`)).status).toBe(404)
  })

  it('a run keeps the prices it started with when an admin changes them while it waits for approval', async () => {
    const member = await stack.createUser('enterprise')
    const api = client(stack, member.apiKey)
    const integration = (await connectZendesk({ url: stack.url, apiKey: member.apiKey })).integrationId!
    const created = await api.run('zendesk.create_ticket', integration, {
      subject: 'Printer',
      description: 'on fire',
    })
    const ticket = created.body.output.id
    await patchPrices(admin, { prices: { 'sandbox-model': { input_per_mtok: 10, output_per_mtok: 20 } } })
    const startedWith = (await api.get('/v1/model-prices')).body
    const model = await scriptedModel(stack, member.apiKey, [
      { tool_calls: [{ name: 'delete_ticket', arguments: { ticket_id: ticket }, id: 'call_delete' }] },
      { text: 'Kept it.' },
    ])
    const saved = await modelAgent(api, model.connectionId, {
      tools: [{ tool: 'zendesk.delete_ticket', integration }],
    })
    expect(saved.status, saved.text).toBe(201)
    const runId = (await api.post(`/v1/agents/${saved.body.id}/runs`, { inputs: {} })).body.id
    expect((await waitForRun(api, runId, settled)).status).toBe('waiting_for_approval')
    // The price goes up tenfold while the run waits.
    await patchPrices(admin, { prices: { 'sandbox-model': { input_per_mtok: 100, output_per_mtok: 200 } } })
    const approval = (await api.get('/v1/approvals')).body.approvals.find((a: any) => a.run_id === runId)
    await api.post(`/v1/approvals/${approval.id}/decide`, {
      decisions: [{ tool_call_id: 'call_delete', decision: 'deny', reason: 'keep it' }],
    })
    const run = await waitForRun(api, runId, (r) => settled(r) && r.status !== 'waiting_for_approval')
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    const calls = run.timeline.filter((e: any) => e.kind === 'model_call')
    const logged = await model.calls()
    expect(calls.map((c: any) => c.output.price_table)).toEqual([startedWith.version, startedWith.version])
    expect(calls[1].output.cost_usd).toBeCloseTo(
      (logged[1].usage.input_tokens * 10 + logged[1].usage.output_tokens * 20) / 1e6,
      8,
    )
  })

  it.each([
    ['no prices', {}, 'prices'],
    ['an empty change', { prices: {} }, 'prices'],
    [
      'a negative price',
      { prices: { m: { input_per_mtok: -1, output_per_mtok: 1 } } },
      'prices.m.input_per_mtok',
    ],
    [
      'a price in words',
      { prices: { m: { input_per_mtok: 'cheap', output_per_mtok: 1 } } },
      'prices.m.input_per_mtok',
    ],
    ['no output price', { prices: { m: { input_per_mtok: 1 } } }, 'prices.m.output_per_mtok'],
    [
      'an absurd price',
      { prices: { m: { input_per_mtok: 1e12, output_per_mtok: 1 } } },
      'prices.m.input_per_mtok',
    ],
    [
      'a field it does not take',
      { prices: { m: { input_per_mtok: 1, output_per_mtok: 1, cached: 1 } } },
      'prices.m.cached',
    ],
    ['a list for prices', { prices: [1, 2] }, 'prices'],
  ])('a change with %s is refused with 400 naming the field', async (_name, body, field) => {
    const answer = await patchPrices(admin, body)
    expect(answer.status, answer.text).toBe(400)
    expect(answer.body.errors.map((e: any) => e.field)).toContain(field)
  })

  it('only an admin changes prices: a member gets 403 and the version does not move', async () => {
    const member = await stack.createUser('enterprise')
    const before = (await admin.get('/v1/model-prices')).body.override_version
    const answer = await patchPrices(client(stack, member.apiKey), {
      prices: { 'sandbox-model': { input_per_mtok: 0, output_per_mtok: 0 } },
    })
    expect(answer.status).toBe(403)
    expect((await admin.get('/v1/model-prices')).body.override_version).toBe(before)
  })

  it('a model named like a property every object has is priced like any other', async () => {
    const answer = await patchPrices(admin, {
      prices: { constructor: { input_per_mtok: 1, output_per_mtok: 1 } },
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.prices).toContainEqual({
      model: 'constructor',
      input_per_mtok: 1,
      output_per_mtok: 1,
      source: 'admin',
    })
    expect(answer.body.prices.find((p: any) => p.model === 'toString')).toBeUndefined()
  })
})

describe("an admin's plan ceilings bind every agent's author", () => {
  it('saving a budget above the ceiling is refused naming the field; a run is capped by a ceiling lowered later', async () => {
    const set = await admin.put('/v1/plan-ceilings/pro', { model_calls: 3, cost_usd: 2 })
    expect(set.status, set.text).toBe(200)
    expect(set.body).toMatchObject({ plan: 'pro', overridden: ['model_calls', 'cost_usd'] })
    expect(set.body.ceilings).toMatchObject({ model_calls: 3, cost_usd: 2, tool_calls: 200 })
    const member = await stack.createUser('pro')
    const api = client(stack, member.apiKey)
    const model = await scriptedModel(stack, member.apiKey, [
      { tool_calls: [{ name: 'escalate_to_person', arguments: {}, id: 'c1' }] },
    ])
    const tooMuch = await modelAgent(api, model.connectionId, { budget: { model_calls: 4 } })
    expect(tooMuch.status, tooMuch.text).toBe(400)
    expect(tooMuch.body.errors).toEqual([
      { field: 'budget.model_calls', message: expect.stringMatching(/pro plan allows at most 3/) },
    ])
    const tooDear = await modelAgent(api, model.connectionId, { budget: { cost_usd: 2.5 } })
    expect(tooDear.body.errors).toEqual([
      { field: 'budget.cost_usd', message: expect.stringMatching(/at most 2/) },
    ])

    // Saved at the ceiling, then the admin lowers it: the run stops at the new ceiling.
    // Each answer asks for a tool that does not exist: the error goes back and the model is asked again.
    const looping = await scriptedModel(stack, member.apiKey, [
      { tool_calls: [{ name: 'nope', arguments: { n: 1 }, id: 'c1' }] },
      { tool_calls: [{ name: 'nope', arguments: { n: 2 }, id: 'c2' }] },
      { text: 'done' },
    ])
    const saved = await modelAgent(api, looping.connectionId, { budget: { model_calls: 3 } })
    expect(saved.status, saved.text).toBe(201)
    expect((await admin.put('/v1/plan-ceilings/pro', { model_calls: 1 })).status).toBe(200)
    const runId = (await api.post(`/v1/agents/${saved.body.id}/runs`, { inputs: {} })).body.id
    const run = await waitForRun(api, runId, settled)
    expect(run.status).toBe('budget_exhausted')
    expect(run.error.budget).toBe('model_calls')
    expect(run.timeline.filter((e: any) => e.kind === 'model_call')).toHaveLength(1)
    // Extending cannot go past the ceiling either.
    const extended = await api.post(`/v1/runs/${runId}/extend`, { model_calls: 2 })
    expect(extended.status, extended.text).toBe(400)
    expect(extended.body.errors).toEqual([
      { field: 'model_calls', message: expect.stringMatching(/at most 1/) },
    ])

    // Back to the shipped ceilings: fields left out are the shipped ones.
    const reset = await admin.put('/v1/plan-ceilings/pro', {})
    expect(reset.body.overridden).toEqual([])
    expect(reset.body.ceilings).toEqual(reset.body.shipped)
  })

  it.each([
    ['a negative ceiling', { model_calls: -1 }, 'model_calls'],
    ['a fraction of a call', { tool_calls: 1.5 }, 'tool_calls'],
    ['a ceiling in words', { cost_usd: 'lots' }, 'cost_usd'],
    ['a field it does not take', { dollars: 5 }, 'dollars'],
  ])('setting %s is refused with 400 naming the field', async (_name, body, field) => {
    const answer = await admin.put('/v1/plan-ceilings/free', body)
    expect(answer.status, answer.text).toBe(400)
    expect(answer.body.errors.map((e: any) => e.field)).toContain(field)
  })

  it('only an admin sets ceilings, and only of a plan that exists', async () => {
    const member = await stack.createUser('free')
    expect(
      (await client(stack, member.apiKey).put('/v1/plan-ceilings/free', { model_calls: 500 })).status,
    ).toBe(403)
    expect((await admin.put('/v1/plan-ceilings/platinum', { model_calls: 5 })).status).toBe(404)
    const { body } = await client(stack, member.apiKey).get('/v1/plan-ceilings')
    expect(body.plans.map((p: any) => p.plan)).toEqual(['free', 'pro', 'enterprise'])
    expect(body.plans[0].ceilings.model_calls).toBe(20)
  })
})
