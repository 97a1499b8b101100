import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ANTHROPIC_KEY, startModelSandboxes, type TestModelSandboxes } from '../model-kit/test-support.ts'

/**
 * The official `@anthropic-ai/sdk` accepts the Anthropic sandbox unchanged: messages plain and
 * streamed (its MessageStream checks the event order), a tool_use round trip, its typed errors,
 * and its retry of a 529 overloaded_error.
 */

let sandboxes: TestModelSandboxes
let client: Anthropic
beforeAll(async () => {
  sandboxes = await startModelSandboxes()
  client = new Anthropic({ baseURL: sandboxes.anthropicBase, apiKey: ANTHROPIC_KEY, maxRetries: 0 })
})
afterAll(() => sandboxes.close())
beforeEach(async () => {
  await sandboxes.anthropic('/reset', { body: {} })
})

const tools: Anthropic.Tool[] = [
  {
    name: 'get_ticket',
    description: 'Read one ticket',
    input_schema: { type: 'object', properties: { ticket_id: { type: 'integer' } }, required: ['ticket_id'] },
  },
]
const request = {
  model: 'sandbox-model',
  max_tokens: 500,
  system: 'Call get_ticket.\nticket_id: 7',
  tools,
  messages: [{ role: 'user' as const, content: 'hello' }],
}

describe('@anthropic-ai/sdk on the Anthropic sandbox', () => {
  it('reads a tool_use, then the final text after the tool_result', async () => {
    const first = await client.messages.create(request)
    expect(first.stop_reason).toBe('tool_use')
    const use = first.content.find((b) => b.type === 'tool_use')!
    expect(use).toMatchObject({ name: 'get_ticket', input: { ticket_id: 7 } })
    const second = await client.messages.create({
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Subject: Broken' }] },
      ],
    })
    expect(second.stop_reason).toBe('end_turn')
    expect(second.content[0]).toMatchObject({ type: 'text' })
    expect(second.usage.input_tokens).toBeGreaterThan(first.usage.input_tokens)
  })

  it('streams the same answer, event by event', async () => {
    const stream = client.messages.stream(request)
    const events: string[] = []
    stream.on('streamEvent', (event) => events.push(event.type))
    const message = await stream.finalMessage()
    expect(message.content.find((b) => b.type === 'tool_use')).toMatchObject({ input: { ticket_id: 7 } })
    expect(events[0]).toBe('message_start')
    expect(events.at(-1)).toBe('message_stop')
    const { body } = await sandboxes.anthropic('/calls?limit=1')
    expect(message.usage.output_tokens).toBe(body.calls[0].usage.output_tokens)
  })

  it('raises its typed errors with the request id', async () => {
    const error = await client.messages.create({ ...request, model: 'claude-x' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.NotFoundError)
    expect((error as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(/^req_/)
    const badKey = new Anthropic({ baseURL: sandboxes.anthropicBase, apiKey: 'nope', maxRetries: 0 })
    await expect(badKey.messages.create(request)).rejects.toBeInstanceOf(Anthropic.AuthenticationError)
  })

  it('retries a 529 overloaded_error and then succeeds', async () => {
    await sandboxes.anthropic('/faults', { body: { status: 529, retry_after: 0, times: 1 } })
    const retrying = new Anthropic({ baseURL: sandboxes.anthropicBase, apiKey: ANTHROPIC_KEY, maxRetries: 1 })
    const message = await retrying.messages.create(request)
    expect(message.stop_reason).toBe('tool_use')
    const { body } = await sandboxes.anthropic('/requests')
    expect(body.requests.map((r: any) => r.status)).toEqual([529, 200])
  })
})
