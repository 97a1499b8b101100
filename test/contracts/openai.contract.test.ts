import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { missingVendorFile, VendorSpec, type Answer } from '../helpers/openapi-contract.ts'
import {
  openaiHeaders,
  post,
  sseData,
  startModelSandboxes,
  type TestModelSandboxes,
} from '../../src/sandboxes/model-kit/test-support.ts'

/**
 * Contract: the OpenAI sandbox's answers match OpenAI's OpenAPI file (openai.yaml in
 * shared/reference/openapi/): each JSON answer against its operation's 200 schema, each streamed
 * event against the stream schema the operation names for `text/event-stream`, and each error
 * body against `ErrorResponse`. Objects are closed: a field the file does not declare is a finding.
 */

const skip = missingVendorFile('openai.yaml')
if (skip) console.warn(`OpenAI contract tests skipped: ${skip}`)

let sandboxes: TestModelSandboxes
const tools = [
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
const responseTools = tools.map(({ function: f }) => ({ type: 'function', ...f }))
const system = 'Call get_ticket.\nticket_id: 7'

/** Chat requests giving each kind of answer: a tool call, a text, a length stop. */
const chatRequests = {
  toolCall: {
    model: 'sandbox-model',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: 'hi' },
    ],
    tools,
  },
  text: { model: 'sandbox-model', messages: [{ role: 'user', content: 'hi' }] },
  length: {
    model: 'sandbox-model',
    max_tokens: 3,
    messages: [{ role: 'user', content: 'a long enough question' }],
  },
}
const responseRequests = {
  toolCall: { model: 'sandbox-model', instructions: system, input: 'hi', tools: responseTools },
  text: { model: 'sandbox-model', input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }] },
  length: { model: 'sandbox-model', max_output_tokens: 16, input: 'x'.repeat(10), instructions: 'Answer.' },
}

describe.skipIf(skip)(
  `OpenAI sandbox against the vendor OpenAPI document${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let spec: VendorSpec
    beforeAll(async () => {
      spec = new VendorSpec('openai.yaml', { closed: true, lenientKeywords: true })
      sandboxes = await startModelSandboxes()
    })
    afterAll(() => sandboxes?.close())

    const findings = (result: { errors: string[]; absent: string[] }) => [
      ...result.errors,
      ...result.absent.map((name) => `schema ${name} is not in the file`),
    ]
    const call = (path: string, body: unknown, headers: Record<string, string> = openaiHeaders()) =>
      post(`${sandboxes.openaiBase}${path}`, body, headers)

    it.each(Object.entries(chatRequests))(
      'POST /chat/completions (%s) answers CreateChatCompletionResponse',
      async (_, body) => {
        const answer = await call('/chat/completions', body)
        const exchange: Answer = {
          method: 'POST',
          template: '/chat/completions',
          status: answer.status,
          body: answer.json,
        }
        expect(findings(spec.check(exchange))).toEqual([])
      },
    )

    it.each(Object.entries(chatRequests))(
      'streamed /chat/completions (%s) sends CreateChatCompletionStreamResponse chunks',
      async (_, body) => {
        const answer = await call('/chat/completions', {
          ...body,
          stream: true,
          stream_options: { include_usage: true },
        })
        const chunks = sseData(answer.text)
        expect(chunks.at(-1)).toBe('[DONE]')
        expect(
          chunks
            .slice(0, -1)
            .flatMap((c) => findings(spec.checkSchema('CreateChatCompletionStreamResponse', c))),
        ).toEqual([])
      },
    )

    it.each(Object.entries(responseRequests))('POST /responses (%s) answers Response', async (_, body) => {
      const answer = await call('/responses', body)
      const exchange: Answer = {
        method: 'POST',
        template: '/responses',
        status: answer.status,
        body: answer.json,
      }
      expect(findings(spec.check(exchange))).toEqual([])
    })

    it.each(Object.entries(responseRequests))(
      'streamed /responses (%s) sends ResponseStreamEvents',
      async (_, body) => {
        const answer = await call('/responses', { ...body, stream: true })
        const events = sseData(answer.text)
        expect(events.map((e) => e.sequence_number)).toEqual(events.map((_e, i) => i))
        expect(events.flatMap((e) => findings(spec.checkSchema('ResponseStreamEvent', e)))).toEqual([])
      },
    )

    it('GET /models answers ListModelsResponse', async () => {
      const response = await fetch(`${sandboxes.openaiBase}/models`, { headers: openaiHeaders() })
      const exchange: Answer = {
        method: 'GET',
        template: '/models',
        status: response.status,
        body: await response.json(),
      }
      expect(findings(spec.check(exchange))).toEqual([])
    })

    it('every error body is an ErrorResponse', async () => {
      await sandboxes.openai('/faults', { body: { rate_limit: { retry_after: 1 }, times: 1 } })
      await sandboxes.openai('/faults', { body: { status: 500, times: 1 } })
      const answers = [
        await call('/chat/completions', chatRequests.text),
        await call('/chat/completions', chatRequests.text),
        await call('/chat/completions', chatRequests.text, {}),
        await call('/chat/completions', { ...chatRequests.text, model: 'gpt-4o' }),
        await call('/responses', {
          model: 'sandbox-model',
          input: [{ type: 'function_call', call_id: 'c1', name: 'x', arguments: '{}' }],
        }),
      ]
      expect(answers.map((a) => a.status)).toEqual([429, 500, 401, 404, 400])
      expect(answers.flatMap((a) => findings(spec.checkSchema('ErrorResponse', a.json)))).toEqual([])
    })
  },
)
