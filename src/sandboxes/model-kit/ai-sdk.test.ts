import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { generateText, stepCountIs, streamText, tool, type LanguageModel } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { DEFAULT_MODEL_NOTE } from './default-model.ts'
import { ANTHROPIC_KEY, OPENAI_KEY, startModelSandboxes, type TestModelSandboxes } from './test-support.ts'

/**
 * The Vercel AI SDK (6.x, the line the product uses) accepts the model sandboxes unchanged, over
 * real HTTP: generateText and streamText run the default model's tool loop on OpenAI's Chat
 * Completions and Responses, Anthropic's Messages and the OpenAI-compatible provider, and the
 * usage the SDK reports is the sandbox's exact count.
 */

let sandboxes: TestModelSandboxes
beforeAll(async () => {
  sandboxes = await startModelSandboxes()
})
afterAll(() => sandboxes.close())

const SYSTEM =
  'Read the ticket with get_ticket, then look for similar ones with search_tickets.\nticket_id: 42'
const PROMPT = 'The printer is on fire'

const tools = {
  get_ticket: tool({
    description: 'Read one ticket',
    inputSchema: z.object({ ticket_id: z.number().int() }),
    execute: async ({ ticket_id }) => ({ id: ticket_id, subject: 'Printer on fire', status: 'open' }),
  }),
  search_tickets: tool({
    description: 'Search tickets',
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => ({ results: [{ id: 7, subject: `Also: ${query}` }] }),
  }),
}

const providers: Array<{ name: string; log: 'openai' | 'anthropic'; model: () => LanguageModel }> = [
  {
    name: 'OpenAI Chat Completions',
    log: 'openai',
    model: () => createOpenAI({ baseURL: sandboxes.openaiBase, apiKey: OPENAI_KEY }).chat('sandbox-model'),
  },
  {
    name: 'OpenAI Responses',
    log: 'openai',
    model: () =>
      createOpenAI({ baseURL: sandboxes.openaiBase, apiKey: OPENAI_KEY }).responses('sandbox-model'),
  },
  {
    name: 'Anthropic Messages',
    log: 'anthropic',
    model: () =>
      createAnthropic({ baseURL: `${sandboxes.anthropicBase}/v1`, apiKey: ANTHROPIC_KEY })('sandbox-model'),
  },
  {
    name: 'OpenAI-compatible',
    log: 'openai',
    model: () =>
      createOpenAICompatible({
        name: 'sandbox',
        baseURL: sandboxes.openaiBase,
        apiKey: OPENAI_KEY,
        includeUsage: true,
      }).chatModel('sandbox-model'),
  },
]

async function loggedUsage(log: 'openai' | 'anthropic', last: number) {
  const { body } = await sandboxes[log](`/calls?limit=${last}`)
  return body.calls.map((c: any) => c.usage)
}

describe.each(providers)('AI SDK on the $name sandbox', ({ log, model }) => {
  it('generateText runs the tool loop the instructions name and ends with a summary', async () => {
    const result = await generateText({
      model: model(),
      system: SYSTEM,
      prompt: PROMPT,
      tools,
      maxOutputTokens: 1000,
      stopWhen: stepCountIs(5),
    })
    expect(result.steps.map((s) => s.toolCalls.map((c) => [c.toolName, c.input]))).toEqual([
      [['get_ticket', { ticket_id: 42 }]],
      [['search_tickets', { query: PROMPT }]],
      [],
    ])
    expect(result.finishReason).toBe('stop')
    expect(result.text.startsWith(DEFAULT_MODEL_NOTE)).toBe(true)
    expect(result.text).toContain('get_ticket: {"id":42,"subject":"Printer on fire","status":"open"}')
    expect(result.text).toContain(`search_tickets: {"results":[{"id":7,"subject":"Also: ${PROMPT}"}]}`)
    const usage = await loggedUsage(log, 3)
    expect(result.steps.map((s) => [s.usage.inputTokens, s.usage.outputTokens])).toEqual(
      usage.map((u: any) => [u.input_tokens, u.output_tokens]),
    )
  })

  it('streamText streams the same loop, text and tool calls included', async () => {
    const result = streamText({
      model: model(),
      system: SYSTEM,
      prompt: PROMPT,
      tools,
      maxOutputTokens: 1000,
      stopWhen: stepCountIs(5),
    })
    const kinds = new Set<string>()
    for await (const part of result.fullStream) {
      kinds.add(part.type)
      if (part.type === 'error') throw part.error
    }
    const steps = await result.steps
    expect(steps.map((s) => s.toolCalls.map((c) => c.toolName))).toEqual([
      ['get_ticket'],
      ['search_tickets'],
      [],
    ])
    expect(await result.finishReason).toBe('stop')
    expect((await result.text).startsWith(DEFAULT_MODEL_NOTE)).toBe(true)
    expect(kinds).toContain('text-delta')
    expect(kinds).toContain('tool-call')
    expect(kinds).toContain('tool-result')
    const usage = await loggedUsage(log, 3)
    expect(steps.map((s) => [s.usage.inputTokens, s.usage.outputTokens])).toEqual(
      usage.map((u: any) => [u.input_tokens, u.output_tokens]),
    )
  })
})
