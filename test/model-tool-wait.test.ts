import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectZendesk } from './helpers/connect.ts'
import { scriptedModel, settled, waitForRun } from './helpers/model-agents.ts'
import { client, zendeskControl } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// A model run's tool call waits on the platform out of its worker slot, as its model calls wait on
// the provider (core/agents/worker.ts, "Slots and waits"; docs/scaling.md): with one slot, a run held
// up at Zendesk does not keep every other run from starting. Over real HTTP against the sandboxes.
let stack: TestStack
let api: ReturnType<typeof client>
let integration: string

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL, config: { runConcurrency: 1 } })
  api = client(stack, stack.apiKey)
  integration = (await connectZendesk(stack)).integrationId!
})
afterAll(async () => {
  await stack?.close()
})

async function ticket(subject: string): Promise<number> {
  const { body } = await api.run('zendesk.create_ticket', integration, { subject, description: 'slow' })
  return body.output.id
}

async function created(path: string, body: unknown): Promise<string> {
  const res = await api.post(path, body)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.id as string
}

describe('slots and waits', () => {
  it("a model run's tool call held up at the platform leaves the worker's one slot to other runs", async () => {
    const slow = await ticket('held up')
    const quick = await ticket('quick')
    const zendesk = zendeskControl(stack)
    await zendesk.fault({
      latency_ms: 8_000,
      match: { method: 'GET', path: `/api/v2/tickets/${slow}.json` },
      times: 1,
    })
    try {
      const model = await scriptedModel(stack, stack.apiKey, [
        { tool_calls: [{ name: 'get_ticket', arguments: { ticket_id: slow }, id: 'call_1' }] },
        { text: 'Read it.' },
      ])
      const modelAgent = await created('/v1/agents', {
        name: 'Slow reader',
        kind: 'model',
        instructions: 'Read the ticket.',
        model: { connection: model.connectionId, name: 'sandbox-model' },
        tools: [{ tool: 'zendesk.get_ticket', integration }],
      })
      const held = await created(`/v1/agents/${modelAgent}/runs`, { inputs: {} })
      // The tool call has begun and waits on Zendesk's answer.
      await waitForRun(api, held, (r) => r.timeline.some((e: any) => e.kind === 'tool_call'))

      const stepAgent = await created('/v1/agents', {
        name: 'Quick reader',
        kind: 'steps',
        steps: [{ key: 'read', tool: 'zendesk.get_ticket', integration, input: { ticket_id: quick } }],
      })
      const other = await waitForRun(
        api,
        await created(`/v1/agents/${stepAgent}/runs`, { inputs: {} }),
        settled,
      )
      expect(other.status, JSON.stringify(other.error)).toBe('succeeded')
      // Done while the held run's tool call still waits: it did not need the held run's slot.
      const meanwhile = (await api.get(`/v1/runs/${held}`)).body
      expect(meanwhile.timeline.find((e: any) => e.kind === 'tool_call')?.status).toBe('running')

      const done = await waitForRun(api, held, settled)
      expect(done.status, JSON.stringify(done.error)).toBe('succeeded')
      expect(done.timeline.map((e: any) => `${e.kind}:${e.status}`)).toEqual([
        'model_call:succeeded',
        'tool_call:succeeded',
        'model_call:succeeded',
      ])
    } finally {
      await zendesk.clearFaults()
    }
  }, 60_000)
})
