import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { UNKNOWN_TOOL } from './model-faults.ts'
import {
  anthropicHeaders,
  OPENAI_KEY,
  openaiHeaders,
  post,
  sseData,
  sseNames,
  startModelSandboxes,
  type TestModelSandboxes,
} from './test-support.ts'

/**
 * Scenarios, faults on demand and exact token counts: what the product's tests lean on to
 * prove retries, repairs, budgets and crash recovery against the model sandboxes.
 */

let sandboxes: TestModelSandboxes
beforeAll(async () => {
  sandboxes = await startModelSandboxes()
})
afterAll(() => sandboxes.close())
beforeEach(async () => {
  await sandboxes.openai('/reset', { body: {} })
  await sandboxes.anthropic('/reset', { body: {} })
})

const tool = (name: string) => ({
  type: 'function',
  function: {
    name,
    parameters: { type: 'object', properties: { ticket_id: { type: 'integer' } }, required: ['ticket_id'] },
  },
})
const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'sandbox-model',
  messages: [
    { role: 'system', content: 'Use get_ticket, then search_tickets.\nticket_id: 5' },
    { role: 'user', content: 'hello' },
  ],
  tools: [tool('get_ticket'), tool('search_tickets')],
  ...extra,
})
const complete = (body: unknown, headers: Record<string, string> = openaiHeaders()) =>
  post(`${sandboxes.openaiBase}/chat/completions`, body, headers)
const callsOf = (answer: { json: any }) =>
  (answer.json.choices[0].message.tool_calls ?? []).map((c: any) => [c.function.name, c.function.arguments])

describe('scripted turns', () => {
  it('each key follows its own script, turn by turn, then the default model', async () => {
    const turns = (text: string) => [
      { text: `${text} 1` },
      { tool_calls: [{ name: 'get_ticket', arguments: { ticket_id: 9 } }] },
    ]
    await sandboxes.openai('/scenarios', { body: { api_key: 'sk-a', turns: turns('a') } })
    await sandboxes.openai('/scenarios', { body: { api_key: 'sk-b', turns: turns('b') } })
    const [a1, b1] = await Promise.all([
      complete(chat(), openaiHeaders('sk-a')),
      complete(chat(), openaiHeaders('sk-b')),
    ])
    expect([a1.json.choices[0].message.content, b1.json.choices[0].message.content]).toEqual(['a 1', 'b 1'])
    const a2 = await complete(chat(), openaiHeaders('sk-a'))
    expect(callsOf(a2)).toEqual([['get_ticket', '{"ticket_id":9}']])
    const a3 = await complete(chat(), openaiHeaders('sk-a'))
    expect(callsOf(a3)).toEqual([['get_ticket', '{"ticket_id":5}']])
    const { body } = await sandboxes.openai('/calls')
    expect(body.calls.map((c: any) => c.scripted)).toEqual([true, true, true, false])
  })

  it('a scenario id in x-sandbox-scenario wins over the key, and an unknown one is refused', async () => {
    await sandboxes.anthropic('/scenarios', { body: { id: 'triage', turns: [{ text: 'scripted' }] } })
    const body = { model: 'sandbox-model', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }
    const scripted = await post(`${sandboxes.anthropicBase}/v1/messages`, body, {
      ...anthropicHeaders(),
      'x-sandbox-scenario': 'triage',
    })
    expect(scripted.json.content).toEqual([{ type: 'text', text: 'scripted' }])
    const unknown = await post(`${sandboxes.anthropicBase}/v1/messages`, body, {
      ...anthropicHeaders(),
      'x-sandbox-scenario': 'nope',
    })
    expect(unknown.status).toBe(400)
  })

  it.each([
    [{ turns: [] }, 'turns must be a non-empty array'],
    [{ turns: [{}] }, 'turns[0] needs text, tool_calls or a fault'],
    [
      { turns: [{ tool_calls: [{ arguments: {} }] }] },
      'turns[0].tool_calls[0].name must be a non-empty string',
    ],
    [{ turns: [{ text: 'x', finish: 'maybe' }] }, 'turns[0].finish must be "stop" or "length"'],
    [{ turns: [{ fault: { reply: 'nonsense' } }] }, 'turns[0].fault: reply must be one of'],
  ])('refuses a bad script %j, naming the field', async (body, problem) => {
    const answer = await sandboxes.openai('/scenarios', { body })
    expect(answer.status).toBe(400)
    expect(answer.body.description.startsWith(problem)).toBe(true)
  })
})

describe('faults on demand', () => {
  it.each([
    ['malformed_arguments', (calls: string[][]) => expect(() => JSON.parse(calls[0]![1]!)).toThrow()],
    ['empty_input', (calls: string[][]) => expect(calls[0]![1]).toBe('{}')],
    ['unknown_tool', (calls: string[][]) => expect(calls[0]![0]).toBe(UNKNOWN_TOOL)],
    [
      'parallel_calls',
      (calls: string[][]) => expect(calls.map((c) => c[0])).toEqual(['get_ticket', 'search_tickets']),
    ],
  ])('reply fault %s changes the next answer only', async (reply, check) => {
    await sandboxes.openai('/faults', { body: { reply, times: 1 } })
    const faulted = await complete(chat())
    check(callsOf(faulted))
    expect(callsOf(await complete(chat()))).toEqual([['get_ticket', '{"ticket_id":5}']])
  })

  it('length_in_tool_call stops for length in the middle of the arguments', async () => {
    await sandboxes.openai('/faults', { body: { reply: 'length_in_tool_call', times: 1 } })
    const answer = await complete(chat())
    expect(answer.json.choices[0].finish_reason).toBe('length')
    expect(() => JSON.parse(callsOf(answer)[0][1])).toThrow()
  })

  it('a stream cut after n events ends without its last events', async () => {
    await sandboxes.openai('/faults', { body: { cut_after_events: 2, times: 1 } })
    const response = await fetch(`${sandboxes.openaiBase}/chat/completions`, {
      method: 'POST',
      headers: { ...openaiHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify(chat({ stream: true })),
    })
    expect(response.status).toBe(200)
    await expect(response.text()).rejects.toThrow()
  })

  it('a scripted 529 is Anthropic overloaded_error, and a scripted drop closes the connection', async () => {
    await sandboxes.anthropic('/scenarios', {
      body: {
        api_key: 'sk-ant-faults',
        turns: [{ fault: { status: 529 } }, { fault: { drop: true } }, { text: 'back' }],
      },
    })
    const body = { model: 'sandbox-model', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }
    const headers = anthropicHeaders('sk-ant-faults')
    const overloaded = await post(`${sandboxes.anthropicBase}/v1/messages`, body, headers)
    expect([overloaded.status, overloaded.json.error.type]).toEqual([529, 'overloaded_error'])
    await expect(post(`${sandboxes.anthropicBase}/v1/messages`, body, headers)).rejects.toThrow()
    const back = await post(`${sandboxes.anthropicBase}/v1/messages`, { ...body, stream: true }, headers)
    expect(sseNames(back.text)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
  })

  it('a 429 carries retry-after and the rate-limit error body', async () => {
    await sandboxes.openai('/faults', { body: { rate_limit: { retry_after: 3 }, times: 1 } })
    const answer = await complete(chat())
    expect([answer.status, answer.headers.get('retry-after'), answer.json.error.code]).toEqual([
      429,
      '3',
      'rate_limit_exceeded',
    ])
  })

  it('a slow first byte is logged as latency and the answer still comes', async () => {
    await sandboxes.openai('/faults', { body: { latency_ms: 50, times: 1 } })
    expect((await complete(chat())).status).toBe(200)
    const { body } = await sandboxes.openai('/requests')
    expect(body.requests[0].fault).toBe('latency')
  })
})

describe('exact token counts', () => {
  it('counts 4 bytes a token, 3 a message, and says the same in the answer and the calls log', async () => {
    const body = { model: 'sandbox-model', messages: [{ role: 'user', content: 'hello world!' }] }
    const answer = await complete(body, openaiHeaders(OPENAI_KEY))
    const text: string = answer.json.choices[0].message.content
    expect(answer.json.usage.prompt_tokens).toBe(3 + 3)
    expect(answer.json.usage.completion_tokens).toBe(Math.ceil(Buffer.byteLength(text) / 4))
    const { body: log } = await sandboxes.openai('/calls')
    expect(log.calls[0].usage).toEqual({
      input_tokens: answer.json.usage.prompt_tokens,
      output_tokens: answer.json.usage.completion_tokens,
    })
  })

  it('stops for length at max_tokens, counting exactly max_tokens', async () => {
    const answer = await complete({
      model: 'sandbox-model',
      max_tokens: 4,
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect([answer.json.choices[0].finish_reason, answer.json.usage.completion_tokens]).toEqual(['length', 4])
    const streamed = await complete({
      model: 'sandbox-model',
      max_tokens: 4,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    })
    const finish = sseData(streamed.text).flatMap((c) =>
      c === '[DONE]' ? [] : c.choices.map((x: any) => x.finish_reason),
    )
    expect(finish.at(-1)).toBe('length')
  })
})
