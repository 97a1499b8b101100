import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectZendesk } from './helpers/connect.ts'
import { scriptedModel, settled, waitForRun } from './helpers/model-agents.ts'
import { describeRun } from '../src/cli/runs.ts'
import { callOk, httpClient } from './helpers/mcp.ts'
import { client, controlCaller, zendeskControl } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// Model agents against the model sandbox and the Zendesk sandbox, over real HTTP (issue 23).
let stack: TestStack
let api: ReturnType<typeof client>
let integration: string

beforeAll(async () => {
  stack = await startTestStack({
    databaseUrl: process.env.TEST_DATABASE_URL,
    backoff: { stepMs: [20, 20, 20] },
  })
  api = client(stack, stack.apiKey)
  integration = (await connectZendesk(stack)).integrationId!
})
afterAll(async () => {
  await stack?.close()
})

async function ticket(): Promise<number> {
  const { body } = await api.run('zendesk.create_ticket', integration, {
    subject: 'Printer',
    description: 'on fire',
  })
  return body.output.id
}

async function agent(connection: string, extra: Record<string, unknown> = {}) {
  const created = await api.post('/v1/agents', {
    name: `model ${Math.random().toString(36).slice(2)}`,
    kind: 'model',
    inputs: [{ name: 'ticket_id', type: 'number' }],
    instructions: 'Read ticket {{ inputs.ticket_id }} with get_ticket.',
    model: { connection, name: 'sandbox-model' },
    tools: [
      { tool: 'zendesk.get_ticket', integration },
      { tool: 'zendesk.delete_ticket', integration },
      { tool: 'zendesk.update_ticket', integration, require_approval: true },
    ],
    ...extra,
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return created.body.id as string
}

async function start(agentId: string, inputs: Record<string, unknown>) {
  const { status, body } = await api.post(`/v1/agents/${agentId}/runs`, { inputs })
  expect(status, JSON.stringify(body)).toBe(201)
  return body.id as string
}

describe('a model agent runs its loop durably', () => {
  it('each model call and each tool call is its own timeline entry, with tokens, cost and request id', async () => {
    const id = await ticket()
    const model = await scriptedModel(stack, stack.apiKey, [
      { tool_calls: [{ name: 'get_ticket', arguments: { ticket_id: id }, id: 'call_1' }] },
      { text: 'The ticket is about a printer.' },
    ])
    const run = await waitForRun(
      api,
      await start(await agent(model.connectionId), { ticket_id: id }),
      settled,
    )
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.result).toBe('The ticket is about a printer.')
    const kinds = run.timeline.map((e: any) => `${e.kind}:${e.key}:${e.status}`)
    expect(kinds).toEqual([
      'model_call:model#1:succeeded',
      'tool_call:call_1:succeeded',
      'model_call:model#2:succeeded',
    ])
    const first = run.timeline[0]
    const logged = await model.calls()
    expect(first.output.usage).toEqual({
      inputTokens: logged[0].usage.input_tokens,
      outputTokens: logged[0].usage.output_tokens,
    })
    expect(first.output.cost_usd).toBeGreaterThan(0)
    expect(first.output.request_id ?? first.output.requestId).toMatch(/^req_/)
    expect(first.input.tools).toEqual(['get_ticket', 'delete_ticket', 'update_ticket', 'escalate_to_person'])
    expect(run.timeline[1].output.id).toBe(id)
  })
})

describe('approvals', () => {
  it('a key replaced while a run waits for approval is the key its next model call uses', async () => {
    const id = await ticket()
    const model = await scriptedModel(stack, stack.apiKey, [
      { tool_calls: [{ name: 'delete_ticket', arguments: { ticket_id: id }, id: 'call_delete' }] },
      { text: 'answered under the old key' },
    ])
    const runId = await start(await agent(model.connectionId), { ticket_id: id })
    expect((await waitForRun(api, runId, settled)).status).toBe('waiting_for_approval')
    // The sandbox answers a key with the scenario bound to it: only the new key gets this answer.
    const newKey = `sk-rotated-${Math.random().toString(36).slice(2)}`
    const control = controlCaller(`${stack.sandboxUrl}/openai/_control`)
    const scenario = await control('POST', '/scenarios', {
      api_key: newKey,
      turns: [{ text: 'answered under the new key' }],
    })
    expect(scenario.status, JSON.stringify(scenario.body)).toBe(201)
    const rotated = await api.patch(`/v1/model-connections/${model.connectionId}`, { api_key: newKey })
    expect(rotated.status, rotated.text).toBe(200)
    const { body: list } = await api.get('/v1/approvals')
    const approval = list.approvals.find((a: any) => a.run_id === runId)
    const approved = await api.post(`/v1/approvals/${approval.id}/decide`, {
      decisions: [{ tool_call_id: 'call_delete', decision: 'approve' }],
    })
    expect(approved.status, JSON.stringify(approved.body)).toBe(200)
    const run = await waitForRun(api, runId, (r) => settled(r) && r.status !== 'waiting_for_approval')
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.result).toBe('answered under the new key')
    expect(await model.calls()).toHaveLength(1) // the old key's scenario answered only the first call
    expect(JSON.stringify(run)).not.toContain(newKey)
  })

  it('a declined destructive call never runs, and the model gets a result saying so (no unanswered call)', async () => {
    const id = await ticket()
    const model = await scriptedModel(stack, stack.apiKey, [
      {
        tool_calls: [
          { name: 'get_ticket', arguments: { ticket_id: id }, id: 'call_read' },
          { name: 'delete_ticket', arguments: { ticket_id: id }, id: 'call_delete' },
        ],
      },
      { text: 'I did not delete it.' },
    ])
    const runId = await start(await agent(model.connectionId), { ticket_id: id })
    const waiting = await waitForRun(api, runId, settled)
    expect(waiting.status).toBe('waiting_for_approval')
    const { body: list } = await api.get('/v1/approvals')
    const approval = list.approvals.find((a: any) => a.run_id === runId)
    expect(approval.calls).toEqual([
      expect.objectContaining({
        tool_call_id: 'call_delete',
        tool: 'zendesk.delete_ticket',
        words: expect.stringContaining(`ticket_id: ${id}`),
      }),
    ])
    const denied = await api.post(`/v1/approvals/${approval.id}/decide`, {
      decisions: [{ tool_call_id: 'call_delete', decision: 'deny', reason: 'we keep tickets' }],
    })
    expect(denied.status, JSON.stringify(denied.body)).toBe(200)
    const run = await waitForRun(api, runId, settled)
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect((await api.run('zendesk.get_ticket', integration, { ticket_id: id })).status).toBe(200)
    const deleteEntry = run.timeline.find((e: any) => e.key === 'call_delete')
    expect(deleteEntry.error).toMatchObject({
      code: 'denied',
      message: expect.stringContaining('we keep tickets'),
    })
    expect(deleteEntry.approval).toMatchObject({
      approval_id: approval.id,
      decision: 'deny',
      by: { id: stack.userId, email: expect.stringContaining('@') },
      reason: 'we keep tickets',
      edited: false,
    })
    // The sandbox refuses, as the provider does, a transcript with a call lacking its result: the
    // second call went through, and it carried the denial for the model to read.
    const calls = await model.calls()
    expect(calls.map((c) => c.status)).toEqual([200, 200])
    expect(JSON.stringify(calls[1].request)).toContain('we keep tickets')
  })
})

async function approvalOf(runId: string) {
  const { body } = await api.get('/v1/approvals')
  return body.approvals.find((a: any) => a.run_id === runId)
}

describe('each complaint about model agents elsewhere, as a test', () => {
  it('one malformed tool call does not kill the run: bad JSON and an unknown tool go back to the model', async () => {
    const id = await ticket()
    const model = await scriptedModel(stack, stack.apiKey, [
      {
        tool_calls: [
          { name: 'get_ticket', arguments: `{"ticket_id": ${id}`, id: 'call_bad' },
          { name: 'get_tickets_please', arguments: {}, id: 'call_unknown' },
        ],
      },
      { tool_calls: [{ name: 'get_ticket', arguments: { ticket_id: id }, id: 'call_good' }] },
      { text: 'fixed it' },
    ])
    const run = await waitForRun(
      api,
      await start(await agent(model.connectionId), { ticket_id: id }),
      settled,
    )
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    const byKey = Object.fromEntries(run.timeline.map((e: any) => [e.key, e]))
    expect(byKey.call_bad.error.code).toBe('invalid_input')
    expect(byKey.call_unknown.error).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('get_ticket'),
    })
    expect(byKey.call_good.status).toBe('succeeded')
    const calls = await model.calls()
    expect(JSON.stringify(calls[1].request)).toContain('there is no tool get_tickets_please')
  })

  it('tool errors past the repair budget end the run out of budget, not as a success', async () => {
    const model = await scriptedModel(stack, stack.apiKey, [
      { tool_calls: [{ name: 'nope', arguments: {}, id: 'c1' }] },
      { tool_calls: [{ name: 'nope', arguments: { a: 1 }, id: 'c2' }] },
      { text: 'never reached' },
    ])
    const run = await waitForRun(
      api,
      await start(await agent(model.connectionId, { budget: { tool_errors: 1 } }), { ticket_id: 1 }),
      settled,
    )
    expect(run.status).toBe('budget_exhausted')
    expect(run.error).toMatchObject({ code: 'budget_exhausted', budget: 'tool_errors' })
  })

  it('running out of model calls is budget_exhausted, keeps the transcript, and the budget holds across a resume', async () => {
    const id = await ticket()
    const model = await scriptedModel(stack, stack.apiKey, [
      {
        tool_calls: [
          { name: 'update_ticket', arguments: { ticket_id: id, status: 'pending' }, id: 'c_write' },
        ],
      },
      { tool_calls: [{ name: 'get_ticket', arguments: { ticket_id: id }, id: 'c_read' }] },
      { text: 'all done' },
    ])
    const runId = await start(await agent(model.connectionId, { budget: { model_calls: 2 } }), {
      ticket_id: id,
    })
    expect((await waitForRun(api, runId, settled)).status).toBe('waiting_for_approval')
    // The approval sends the run back to the queue: a new execution, which must count the call before it.
    const approval = await approvalOf(runId)
    await api.post(`/v1/approvals/${approval.id}/decide`, {
      decisions: [{ tool_call_id: 'c_write', decision: 'approve' }],
    })
    const stopped = await waitForRun(api, runId, (r) => settled(r) && r.status !== 'waiting_for_approval')
    expect(stopped.status).toBe('budget_exhausted')
    expect(stopped.error).toMatchObject({
      budget: 'model_calls',
      message: expect.stringContaining('2 model calls'),
    })
    expect(stopped.timeline.filter((e: any) => e.kind === 'model_call')).toHaveLength(2)
    expect((await model.calls()).length).toBe(2)
    // Extend and continue: the run resumes where it stopped and finishes.
    const extended = await api.post(`/v1/runs/${runId}/extend`, { model_calls: 1 })
    expect(extended.status, JSON.stringify(extended.body)).toBe(200)
    const done = await waitForRun(api, runId, settled)
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded')
    expect(done.result).toBe('all done')
    expect((await model.calls()).length).toBe(3)
  })

  it('an author cannot raise a budget past the plan ceiling, on saving or by extending', async () => {
    const member = await stack.createUser('free')
    const memberApi = client(stack, member.apiKey)
    const refused = await memberApi.post('/v1/agents', {
      name: 'spender',
      kind: 'model',
      instructions: 'spend',
      model: { connection: 'Sandbox model', name: 'sandbox-model' },
      budget: { cost_usd: 1000 },
    })
    expect(refused.status).toBe(400)
    expect(refused.body.errors).toContainEqual({
      field: 'budget.cost_usd',
      message: expect.stringContaining('at most 1'),
    })
  })

  it('the same call with the same arguments and result, again and again, stops as a loop', async () => {
    const id = await ticket()
    const call = (n: number) => ({
      tool_calls: [{ name: 'get_ticket', arguments: { ticket_id: id }, id: `loop_${n}` }],
    })
    const model = await scriptedModel(stack, stack.apiKey, [
      call(1),
      call(2),
      call(3),
      call(4),
      { text: 'x' },
    ])
    const run = await waitForRun(
      api,
      await start(await agent(model.connectionId), { ticket_id: id }),
      settled,
    )
    expect(run.status).toBe('failed')
    expect(run.error.code).toBe('loop_detected')
    expect((await model.calls()).length).toBe(3)
  })

  // The loop no longer reads the run's row before each call: the cancel is checked in the write that
  // begins the next call (models/claimed-timeline.ts).
  it('a cancel asked for while a model run is in hand stops it before its next call', async () => {
    const id = await ticket()
    const zendesk = zendeskControl(stack)
    // The tool call is held long enough for the cancel to come while it is in flight.
    await zendesk.fault({
      latency_ms: 1_500,
      match: { method: 'GET', path: `/api/v2/tickets/${id}.json` },
      times: 1,
    })
    try {
      const runId = await start(await agent('Sandbox model'), { ticket_id: id })
      await waitForRun(api, runId, (r) => r.timeline.some((e: any) => e.kind === 'tool_call'))
      const asked = await api.post(`/v1/runs/${runId}/cancel`)
      expect(asked.status, JSON.stringify(asked.body)).toBe(200)
      const run = await waitForRun(api, runId, settled)
      expect(run.status).toBe('cancelled')
      // The call in flight keeps its result; no model call follows it.
      expect(run.timeline.map((e: any) => e.kind)).toEqual(['model_call', 'tool_call'])
    } finally {
      await zendesk.clearFaults()
    }
  })

  it('escalating to a person is an ending of its own', async () => {
    const model = await scriptedModel(stack, stack.apiKey, [
      {
        tool_calls: [
          { name: 'escalate_to_person', arguments: { reason: 'the customer is a lawyer' }, id: 'e1' },
        ],
      },
    ])
    const run = await waitForRun(api, await start(await agent(model.connectionId), { ticket_id: 1 }), settled)
    expect(run.status).toBe('escalated')
    expect(run.result).toEqual({ reason: 'the customer is a lawyer' })
  })

  it('succeeds only with a final answer valid against the output schema; an invalid one goes back to the model', async () => {
    const model = await scriptedModel(stack, stack.apiKey, [
      { text: 'not json' },
      { text: JSON.stringify({ verdict: 7 }) },
      { text: JSON.stringify({ verdict: 'keep' }) },
    ])
    const output = {
      type: 'object',
      properties: { verdict: { type: 'string' } },
      required: ['verdict'],
      additionalProperties: false,
    }
    const run = await waitForRun(
      api,
      await start(await agent(model.connectionId, { output }), { ticket_id: 1 }),
      settled,
    )
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.result).toEqual({ verdict: 'keep' })
    expect((await model.calls()).length).toBe(3)
  })
})

describe('approval decisions', () => {
  it('parallel calls needing approval are one request; edits are checked again; approve for the rest of the run', async () => {
    const a = await ticket()
    const b = await ticket()
    const model = await scriptedModel(stack, stack.apiKey, [
      {
        tool_calls: [
          { name: 'update_ticket', arguments: { ticket_id: a, status: 'pending' }, id: 'u1' },
          { name: 'update_ticket', arguments: { ticket_id: b, status: 'pending' }, id: 'u2' },
        ],
      },
      { tool_calls: [{ name: 'update_ticket', arguments: { ticket_id: a, status: 'solved' }, id: 'u3' }] },
      { text: 'updated' },
    ])
    const runId = await start(await agent(model.connectionId), { ticket_id: a })
    await waitForRun(api, runId, settled)
    const approval = await approvalOf(runId)
    expect(approval.calls.map((c: any) => c.tool_call_id)).toEqual(['u1', 'u2'])
    const bad = await api.post(`/v1/approvals/${approval.id}/decide`, {
      decisions: [{ tool_call_id: 'u1', decision: 'approve', input: { ticket_id: 'not a number' } }],
    })
    expect(bad.status).toBe(400)
    // Named as the person sent it: the field of the edited input, not the tool run's `input.` path.
    expect(bad.body.errors[0].field).toBe('decisions[0].input.ticket_id')
    // One call decided leaves the run waiting for the other.
    await api.post(`/v1/approvals/${approval.id}/decide`, {
      decisions: [{ tool_call_id: 'u1', decision: 'approve', input: { ticket_id: a, status: 'open' } }],
    })
    expect((await api.get(`/v1/runs/${runId}`)).body.status).toBe('waiting_for_approval')
    await api.post(`/v1/approvals/${approval.id}/decide`, {
      decisions: [{ tool_call_id: 'u2', decision: 'approve_for_run' }],
    })
    const run = await waitForRun(api, runId, (r) => settled(r) && r.status !== 'waiting_for_approval')
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    const byKey = Object.fromEntries(run.timeline.map((e: any) => [e.key, e]))
    expect(byKey.u1.output.status).toBe('open') // the edited input ran, not the model's
    expect(byKey.u3.status).toBe('succeeded') // approved for the rest of the run: no second request
    // The trace says who let each call run and when, and for the edited one both inputs.
    const { body: me } = await api.get('/v1/me')
    const by = { id: stack.userId, name: me.name, email: me.email }
    expect(byKey.u1.approval).toEqual({
      approval_id: approval.id,
      decision: 'approve',
      by,
      at: expect.any(String),
      reason: null,
      edited: true,
      model_input: { ticket_id: a, status: 'pending' },
    })
    expect(byKey.u1.input).toEqual({ ticket_id: a, status: 'open' })
    expect(byKey.u2.approval).toMatchObject({ decision: 'approve_for_run', by, edited: false })
    expect(byKey.u2.approval).not.toHaveProperty('model_input')
    expect(Date.parse(byKey.u1.approval.at)).toBeLessThanOrEqual(Date.parse(byKey.u2.approval.at))
    // `switchyard runs get` prints it under the call.
    const text = describeRun(run).join('\n')
    expect(text).toContain(`approved with edited input by ${me.name} <${me.email}>`)
    expect(text).toMatch(
      /the model asked for \{[^}]*"status":"pending"[^}]*\}; it ran with \{[^}]*"status":"open"/,
    )
    expect(text).toContain(`approved for the rest of the run by ${me.name} <${me.email}>`)
    expect(
      (await api.get('/v1/approvals?status=all')).body.approvals.filter((x: any) => x.run_id === runId),
    ).toHaveLength(1)
  })

  it('an approval nobody decides expires, and the calls count as denied', async () => {
    const id = await ticket()
    const model = await scriptedModel(stack, stack.apiKey, [
      { tool_calls: [{ name: 'delete_ticket', arguments: { ticket_id: id }, id: 'd1' }] },
      { text: 'nothing deleted' },
    ])
    const runId = await start(await agent(model.connectionId), { ticket_id: id })
    await waitForRun(api, runId, settled)
    // A day passes: the request and the run's wait end now.
    const past = new Date(Date.now() - 1000)
    await stack.services.store.db
      .updateTable('approvals')
      .set({ expires_at: past })
      .where('run_id', '=', runId)
      .execute()
    await stack.services.store.db
      .updateTable('runs')
      .set({ available_at: past })
      .where('id', '=', runId)
      .execute()
    const run = await waitForRun(api, runId, (r) => settled(r) && r.status !== 'waiting_for_approval')
    expect(run.status).toBe('succeeded')
    const expired = run.timeline.find((e: any) => e.key === 'd1')
    expect(expired.error.code).toBe('expired')
    expect(expired.approval).toMatchObject({ decision: 'expired', by: null, at: past.toISOString() })
    expect((await api.run('zendesk.get_ticket', integration, { ticket_id: id })).status).toBe(200)
  })
})

describe('model connections', () => {
  it('keys are sealed and never answered; the sandbox model is offered without a key and says what it is', async () => {
    const secret = `sk-${'s3cret'.repeat(6)}`
    const created = await api.post('/v1/model-connections', {
      name: 'real openai',
      protocol: 'openai-responses',
      base_url: 'https://api.openai.com/v1',
      api_key: secret,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const listed = await api.get('/v1/model-connections')
    expect(listed.text).not.toContain(secret)
    expect(created.text).not.toContain(secret)
    const row = await stack.services.store.db
      .selectFrom('model_connections')
      .select('api_key')
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow()
    expect(row.api_key).not.toContain(secret)
    expect(listed.body.model_connections[0]).toMatchObject({
      id: 'mc_sandbox',
      name: 'Sandbox model',
      sandbox: true,
      has_key: false,
    })
    expect((await api.delete(`/v1/model-connections/${created.body.id}`)).status).toBe(204)
  })

  it.each([
    [{ name: 'x', protocol: 'gemini', base_url: 'https://x.test' }, 'protocol'],
    [{ name: 'x', protocol: 'openai-chat', base_url: 'ftp://x.test', api_key: 'k' }, 'base_url'],
    [{ name: 'x', protocol: 'anthropic', base_url: 'https://x.test' }, 'api_key'],
    [{ name: '', protocol: 'openai-chat', base_url: 'https://x.test', api_key: 'k' }, 'name'],
    [{ name: 'x', protocol: 'openai-chat', base_url: 'https://x.test', api_key: 'k', extra: 1 }, ''],
  ])('refuses %o naming the field', async (input, field) => {
    const { status, body } = await api.post('/v1/model-connections', input)
    expect(status).toBe(400)
    if (field) expect(body.errors.map((e: any) => e.field)).toContain(field)
  })

  it("only an admin shares a connection, and another user's own connection is not theirs to use", async () => {
    const member = await stack.createUser('pro')
    const memberApi = client(stack, member.apiKey)
    const shared = await memberApi.post('/v1/model-connections', {
      name: 'shared',
      protocol: 'openai-compatible',
      base_url: 'http://127.0.0.1:1/v1',
      shared: true,
    })
    expect(shared.status).toBe(403)
    const mine = await api.post('/v1/model-connections', {
      name: 'admin only',
      protocol: 'openai-compatible',
      base_url: 'http://127.0.0.1:1/v1',
    })
    const refused = await memberApi.post('/v1/agents', {
      name: 'borrower',
      kind: 'model',
      instructions: 'x',
      model: { connection: mine.body.id, name: 'm' },
    })
    expect(refused.status).toBe(400)
    expect(refused.body.errors[0].field).toBe('model.connection')
  })

  it("saving names the field OpenAI's strict mode would refuse, and a read that asks for approval", async () => {
    const { status, body } = await api.post('/v1/agents', {
      name: 'strict',
      kind: 'model',
      instructions: 'x',
      model: { connection: 'Sandbox model', name: 'sandbox-model' },
      tools: [
        { tool: 'zendesk.update_ticket', integration, strict: true },
        { tool: 'zendesk.get_ticket', integration, require_approval: true },
        { tool: 'zendesk.delete_ticket', integration, require_approval: false },
      ],
    })
    expect(status).toBe(400)
    const fields = body.errors.map((e: any) => `${e.field}: ${e.message}`)
    expect(fields.some((f: string) => f.startsWith('tools[0].strict:') && /optional/.test(f))).toBe(true)
    expect(fields.some((f: string) => f.startsWith('tools[1].require_approval: a read never'))).toBe(true)
    expect(
      fields.some((f: string) => f.startsWith('tools[2].require_approval:') && /destructive/.test(f)),
    ).toBe(true)
  })
})

describe('over MCP', () => {
  it('starts a model agent, lists its approval and denies it, and reads the run', async () => {
    const id = await ticket()
    const model = await scriptedModel(stack, stack.apiKey, [
      { tool_calls: [{ name: 'delete_ticket', arguments: { ticket_id: id }, id: 'mcp_del' }] },
      { text: 'kept it' },
    ])
    const agentId = await agent(model.connectionId)
    const mcp = await httpClient(stack.url, stack.apiKey)
    try {
      const started = await callOk(mcp, 'start_agent_run', { agent: agentId, inputs: { ticket_id: id } })
      await waitForRun(api, started.id, settled)
      const { approvals } = await callOk(mcp, 'list_approvals', {})
      const approval = approvals.find((a: any) => a.run_id === started.id)
      await callOk(mcp, 'decide_approval', {
        approval_id: approval.id,
        decisions: [{ tool_call_id: 'mcp_del', decision: 'deny', reason: 'not over MCP' }],
      })
      await waitForRun(api, started.id, (r) => settled(r) && r.status !== 'waiting_for_approval')
      const run = await callOk(mcp, 'get_run', { run_id: started.id })
      expect(run.status).toBe('succeeded')
      expect(run.timeline.find((e: any) => e.key === 'mcp_del').error.code).toBe('denied')
    } finally {
      await mcp.close()
    }
  })
})

describe('triggers start model agents like the other kinds', () => {
  it('a new Zendesk ticket starts a model agent on the sandbox model, which reads it and answers', async () => {
    const created = await api.post('/v1/agents', {
      name: 'ticket reader',
      kind: 'model',
      inputs: [{ name: 'ticket_id', type: 'number', required: true }],
      instructions:
        'Read the new ticket with get_ticket, then say what it is about.\nticket_id: {{ inputs.ticket_id }}',
      model: { connection: 'Sandbox model', name: 'sandbox-model' },
      tools: [{ tool: 'zendesk.get_ticket', integration }],
    })
    expect(created.status, created.text).toBe(201)
    const sub = await api.post(`/v1/agents/${created.body.id}/subscriptions`, {
      trigger: 'zendesk.new_ticket',
      integration,
      mapping: { ticket_id: '{{ ticket.id }}' },
      // The ticket below is made with the same integration: a change of its own.
      start_on_own_changes: true,
    })
    expect(sub.status, sub.text).toBe(201)
    if (sub.body.status !== 'active')
      expect((await api.post(`/v1/subscriptions/${sub.body.id}/activate`, {})).status).toBe(200)
    const id = await ticket()
    let runId: string | undefined
    const until = Date.now() + 20_000
    while (!runId && Date.now() < until) {
      runId = (await api.get(`/v1/runs?agent_id=${created.body.id}`)).body.runs[0]?.id
      if (!runId) await new Promise((r) => setTimeout(r, 100))
    }
    expect(runId).toBeDefined()
    const run = await waitForRun(api, runId!, settled)
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.started_by).toBe('trigger')
    expect(run.inputs).toEqual({ ticket_id: id })
    const read = run.timeline.find((e: any) => e.kind === 'tool_call')
    expect(read).toMatchObject({
      tool_id: 'zendesk.get_ticket',
      status: 'succeeded',
      input: { ticket_id: id },
    })
    expect(run.result).toContain('Sandbox model')
  })
})

describe('a tool on any of my accounts', () => {
  it('offers the account names as an enum, so the sandbox model picks a real one and the call runs on it', async () => {
    const account = (await api.get(`/v1/integrations/${integration}`)).body.account_name as string
    const created = await api.post('/v1/agents', {
      name: 'any-account reader',
      kind: 'model',
      inputs: [{ name: 'ticket_id', type: 'number', required: true }],
      instructions: 'Read the ticket with get_ticket.\nticket_id: {{ inputs.ticket_id }}',
      model: { connection: 'Sandbox model', name: 'sandbox-model' },
      tools: [{ tool: 'zendesk.get_ticket' }],
    })
    expect(created.status, created.text).toBe(201)
    const id = await ticket()
    const run = await waitForRun(api, await start(created.body.id, { ticket_id: id }), settled)
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    const read = run.timeline.find((e: any) => e.kind === 'tool_call')
    expect(read).toMatchObject({ status: 'succeeded', input: { account, ticket_id: id } })
  })
})

describe('cancelling a run that waits for a person', () => {
  it('ends it at once; its request leaves the inbox and can no longer be decided', async () => {
    const id = await ticket()
    const model = await scriptedModel(stack, stack.apiKey, [
      { tool_calls: [{ name: 'delete_ticket', arguments: { ticket_id: id }, id: 'c_del' }] },
      { text: 'x' },
    ])
    const runId = await start(await agent(model.connectionId), { ticket_id: id })
    await waitForRun(api, runId, settled)
    const approval = await approvalOf(runId)
    const cancelled = await api.post(`/v1/runs/${runId}/cancel`)
    expect(cancelled.body.status).toBe('cancelled')
    expect(await approvalOf(runId)).toBeUndefined()
    const late = await api.post(`/v1/approvals/${approval.id}/decide`, {
      decisions: [{ tool_call_id: 'c_del', decision: 'approve' }],
    })
    expect(late.status).toBe(409)
    expect((await api.run('zendesk.get_ticket', integration, { ticket_id: id })).status).toBe(200)
  })
})
