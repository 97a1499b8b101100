import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectZendesk } from './helpers/connect.ts'
import { scriptedModel, settled, waitForRun } from './helpers/model-agents.ts'
import { client } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// Model agents against the model sandbox and the Zendesk sandbox, over real HTTP (issue 23).
let stack: TestStack
let api: ReturnType<typeof client>
let integration: string

beforeAll(async () => {
  stack = await startTestStack({ backoff: { stepMs: [20, 20, 20] } })
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
    // The sandbox refuses, as the provider does, a transcript with a call lacking its result: the
    // second call went through, and it carried the denial for the model to read.
    const calls = await model.calls()
    expect(calls.map((c) => c.status)).toEqual([200, 200])
    expect(JSON.stringify(calls[1].request)).toContain('we keep tickets')
  })
})
