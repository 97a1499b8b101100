import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { OPENAI_KEY, startModelSandboxes, type TestModelSandboxes } from '../model-kit/test-support.ts'

/**
 * The official `openai` client (6.x, the Node 20 line) accepts the OpenAI sandbox unchanged:
 * Chat Completions and Responses, plain and streamed, the model list, tool calls, its typed
 * errors and its retry on a 429 with Retry-After.
 */

let sandboxes: TestModelSandboxes
let client: OpenAI
beforeAll(async () => {
  sandboxes = await startModelSandboxes()
  client = new OpenAI({ baseURL: sandboxes.openaiBase, apiKey: OPENAI_KEY, maxRetries: 0 })
})
afterAll(() => sandboxes.close())
beforeEach(async () => {
  await sandboxes.openai('/reset', { body: {} })
})

const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_ticket',
      description: 'Read one ticket',
      parameters: {
        type: 'object',
        properties: { ticket_id: { type: 'integer' } },
        required: ['ticket_id'],
        additionalProperties: false,
      },
      strict: true,
    },
  },
]
const system = { role: 'system' as const, content: 'Call get_ticket.\nticket_id: 7' }

describe('openai client on the OpenAI sandbox', () => {
  it('lists the sandbox models', async () => {
    const ids = []
    for await (const model of client.models.list()) ids.push(model.id)
    expect(ids).toEqual(['sandbox-model', 'sandbox-model-mini'])
  })

  it('reads a chat completion with a tool call, then the final answer after the tool result', async () => {
    const first = await client.chat.completions.create({
      model: 'sandbox-model',
      messages: [system, { role: 'user', content: 'hello' }],
      tools,
    })
    const call = first.choices[0]!.message.tool_calls![0]!
    expect(first.choices[0]!.finish_reason).toBe('tool_calls')
    expect(call.type === 'function' && [call.function.name, JSON.parse(call.function.arguments)]).toEqual([
      'get_ticket',
      { ticket_id: 7 },
    ])
    const second = await client.chat.completions.create({
      model: 'sandbox-model',
      messages: [
        system,
        { role: 'user', content: 'hello' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: '{"subject":"Broken"}' },
      ],
      tools,
    })
    expect(second.choices[0]!.finish_reason).toBe('stop')
    expect(second.choices[0]!.message.content).toContain('get_ticket: {"subject":"Broken"}')
    expect(second.usage!.total_tokens).toBe(second.usage!.prompt_tokens + second.usage!.completion_tokens)
  })

  it('streams a chat completion chunk by chunk, with usage at the end', async () => {
    const stream = client.chat.completions.stream({
      model: 'sandbox-model',
      messages: [system, { role: 'user', content: 'hello' }],
      tools,
      stream_options: { include_usage: true },
    })
    const done = await stream.finalChatCompletion()
    expect(done.choices[0]!.message.tool_calls![0]!).toMatchObject({
      type: 'function',
      function: { name: 'get_ticket', arguments: '{"ticket_id":7}' },
    })
    expect(done.usage?.completion_tokens).toBeGreaterThan(0)
  })

  it('reads a response and a streamed response', async () => {
    const request = {
      model: 'sandbox-model',
      instructions: 'Answer plainly.',
      input: 'Say something',
    }
    const plain = await client.responses.create(request)
    expect(plain.status).toBe('completed')
    expect(plain.output_text).toContain('Sandbox model')
    const stream = client.responses.stream(request)
    const types: string[] = []
    stream.on('event', (event) => types.push(event.type))
    const final = await stream.finalResponse()
    expect(final.output_text).toBe(plain.output_text)
    expect(types[0]).toBe('response.created')
    expect(types.at(-1)).toBe('response.completed')
  })

  it('raises its typed errors with OpenAI fields', async () => {
    const error = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.NotFoundError)
    expect(error).toMatchObject({ status: 404, code: 'model_not_found', type: 'invalid_request_error' })
    expect((error as InstanceType<typeof OpenAI.APIError>).requestID).toMatch(/^req_/)
    const badKey = new OpenAI({ baseURL: sandboxes.openaiBase, apiKey: 'nope', maxRetries: 0 })
    await expect(badKey.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError)
  })

  it('retries a 429 after its Retry-After and then succeeds', async () => {
    await sandboxes.openai('/faults', { body: { rate_limit: { retry_after: 0 }, times: 1 } })
    const retrying = new OpenAI({ baseURL: sandboxes.openaiBase, apiKey: OPENAI_KEY, maxRetries: 1 })
    const answer = await retrying.chat.completions.create({
      model: 'sandbox-model',
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(answer.choices[0]!.finish_reason).toBe('stop')
    const { body } = await sandboxes.openai('/requests')
    expect(body.requests.map((r: any) => [r.status, r.fault])).toEqual([
      [429, 'rate_limit'],
      [200, null],
    ])
  })
})
