import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  anthropicHeaders,
  openaiHeaders,
  post,
  startModelSandboxes,
  type TestModelSandboxes,
} from './test-support.ts'

/**
 * The model sandboxes refuse what the real services refuse, with their statuses and texts: a
 * tool call without its result, a result without its call, strict schemas that break OpenAI's
 * rules, unknown models, bad roles, missing keys. Each row would pass silently on an emulator
 * that did not check, which is how a product ships a transcript the real provider answers 400.
 */

let sandboxes: TestModelSandboxes
beforeAll(async () => {
  sandboxes = await startModelSandboxes()
})
afterAll(() => sandboxes.close())

const strictTool = (parameters: Record<string, unknown>) => ({
  type: 'function',
  function: { name: 'f', parameters, strict: true },
})
const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }
const user = { role: 'user', content: 'hi' }

const chatRows: Array<[string, Record<string, unknown>, number, string, string | null]> = [
  [
    'unknown model',
    { model: 'gpt-4o', messages: [user] },
    404,
    'The model `gpt-4o` does not exist or you do not have access to it.',
    null,
  ],
  ['no messages', { model: 'sandbox-model' }, 400, "Missing required parameter: 'messages'.", 'messages'],
  [
    'a bad role',
    { model: 'sandbox-model', messages: [{ role: 'bot', content: 'x' }] },
    400,
    "Invalid value: 'bot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
    'messages[0].role',
  ],
  [
    'a tool call without its result',
    {
      model: 'sandbox-model',
      messages: [user, { role: 'assistant', content: null, tool_calls: [call] }, user],
    },
    400,
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
    'messages.[1].role',
  ],
  [
    'a result without its call',
    { model: 'sandbox-model', messages: [user, { role: 'tool', tool_call_id: 'call_9', content: 'x' }] },
    400,
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    'messages.[1].role',
  ],
  [
    'a strict schema with an optional property',
    {
      model: 'sandbox-model',
      messages: [user],
      tools: [
        strictTool({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }),
      ],
    },
    400,
    "Invalid schema for function 'f': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'a'.",
    'tools[0].function.parameters',
  ],
  [
    'a strict schema open to other properties',
    {
      model: 'sandbox-model',
      messages: [user],
      tools: [strictTool({ type: 'object', properties: {}, required: [] })],
    },
    400,
    "Invalid schema for function 'f': In context=(), 'additionalProperties' is required to be supplied and to be false.",
    'tools[0].function.parameters',
  ],
  [
    'a strict schema with an unsupported keyword',
    {
      model: 'sandbox-model',
      messages: [user],
      tools: [
        strictTool({
          type: 'object',
          properties: { a: { type: 'string', minLength: 2 } },
          required: ['a'],
          additionalProperties: false,
        }),
      ],
    },
    400,
    "Invalid schema for function 'f': In context=('properties', 'a'), 'minLength' is not permitted.",
    'tools[0].function.parameters',
  ],
]

describe('OpenAI Chat Completions refusals', () => {
  it.each(chatRows)('refuses %s', async (_, body, status, message, param) => {
    const answer = await post(`${sandboxes.openaiBase}/chat/completions`, body, openaiHeaders())
    expect([answer.status, answer.json.error.message, answer.json.error.param]).toEqual([
      status,
      message,
      param,
    ])
    expect(answer.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/)
  })

  it('accepts the same strict schema once it keeps the rules', async () => {
    const parameters = {
      type: 'object',
      properties: { a: { type: ['string', 'null'] } },
      required: ['a'],
      additionalProperties: false,
    }
    const answer = await post(
      `${sandboxes.openaiBase}/chat/completions`,
      { model: 'sandbox-model', messages: [user], tools: [strictTool(parameters)] },
      openaiHeaders(),
    )
    expect(answer.status).toBe(200)
  })

  it.each([
    ['no key', {}, "You didn't provide an API key."],
    [
      'a key of the wrong shape',
      { authorization: 'Bearer abcdefghijkl' },
      'Incorrect API key provided: abc*****ijkl.',
    ],
  ])('answers 401 to %s', async (_, headers, start) => {
    const answer = await post(
      `${sandboxes.openaiBase}/chat/completions`,
      { model: 'sandbox-model', messages: [user] },
      headers,
    )
    expect(answer.status).toBe(401)
    expect(answer.json.error.message.startsWith(start)).toBe(true)
  })
})

describe('OpenAI Responses refusals', () => {
  const fc = { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' }
  it.each([
    [
      'a function call without its output',
      [{ role: 'user', content: 'hi' }, fc],
      'No tool output found for function call call_1.',
    ],
    [
      'an output without its call',
      [{ type: 'function_call_output', call_id: 'call_2', output: 'x' }],
      'No tool call found for function call output with call_id call_2.',
    ],
    [
      'a bad role',
      [{ role: 'tool', content: 'x' }],
      "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
    ],
  ])('refuses %s', async (_, input, message) => {
    const answer = await post(
      `${sandboxes.openaiBase}/responses`,
      { model: 'sandbox-model', input },
      openaiHeaders(),
    )
    expect([answer.status, answer.json.error.message]).toEqual([400, message])
  })
})

describe('Anthropic Messages refusals', () => {
  const use = { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }
  const base = { model: 'sandbox-model', max_tokens: 100 }
  it.each([
    [
      'an unknown model',
      { ...base, model: 'claude-x', messages: [user] },
      404,
      'not_found_error',
      'model: claude-x',
    ],
    [
      'no max_tokens',
      { model: 'sandbox-model', messages: [user] },
      400,
      'invalid_request_error',
      'max_tokens: Field required',
    ],
    [
      'a bad role',
      { ...base, messages: [{ role: 'system', content: 'x' }] },
      400,
      'invalid_request_error',
      "messages.0.role: Input should be 'user' or 'assistant'",
    ],
    [
      'a tool_use without its tool_result',
      { ...base, messages: [user, { role: 'assistant', content: [use] }, user] },
      400,
      'invalid_request_error',
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    ],
    [
      'a tool_result without its tool_use',
      {
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'x' }] },
        ],
      },
      400,
      'invalid_request_error',
      'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    ],
  ])('refuses %s', async (_, body, status, type, message) => {
    const answer = await post(`${sandboxes.anthropicBase}/v1/messages`, body, anthropicHeaders())
    expect([answer.status, answer.json.error.type, answer.json.error.message]).toEqual([
      status,
      type,
      message,
    ])
    expect(answer.json.request_id).toBe(answer.headers.get('request-id'))
  })

  it.each([
    ['no key', { 'anthropic-version': '2023-06-01' }, 401, 'x-api-key header is required'],
    [
      'a key of the wrong shape',
      { 'x-api-key': 'sk-nope', 'anthropic-version': '2023-06-01' },
      401,
      'invalid x-api-key',
    ],
    ['no anthropic-version', { 'x-api-key': 'sk-ant-x' }, 400, 'anthropic-version: header is required'],
  ])('answers %s', async (_, headers, status, message) => {
    const answer = await post(
      `${sandboxes.anthropicBase}/v1/messages`,
      { ...base, messages: [user] },
      headers,
    )
    expect([answer.status, answer.json.error.message]).toEqual([status, message])
  })

  it('logs each refusal with its message in the calls log', async () => {
    await sandboxes.anthropic('/calls', { method: 'DELETE' })
    await post(
      `${sandboxes.anthropicBase}/v1/messages`,
      { ...base, model: 'claude-x', messages: [user] },
      anthropicHeaders(),
    )
    const { body } = await sandboxes.anthropic('/calls')
    expect(body.calls.map((c: any) => [c.status, c.error, c.model])).toEqual([
      [404, 'model: claude-x', 'claude-x'],
    ])
  })
})
