import type { FinishReason, ModelReply } from '../model-kit/conversation.ts'
import { fragments, sseEvent } from '../model-kit/sse.ts'

/**
 * Chat Completions answers in OpenAI's shapes (`CreateChatCompletionResponse` and, streamed,
 * `CreateChatCompletionStreamResponse` chunks as `data:` lines ending with `data: [DONE]`).
 */

export interface ChatAnswer {
  id: string
  created: number
  model: string
}

/** OpenAI's backend configuration mark; a string, as the OpenAPI file requires. */
export const SYSTEM_FINGERPRINT = 'fp_sandbox'

const FINISH: Record<FinishReason, string> = { stop: 'stop', tool_calls: 'tool_calls', length: 'length' }

export function chatUsage(reply: ModelReply): Record<string, unknown> {
  const { inputTokens, outputTokens } = reply.usage
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  }
}

export function chatCompletion(answer: ChatAnswer, reply: ModelReply): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: 'assistant',
    // OpenAI sends null content with tool calls and no text.
    content: reply.text === '' && reply.calls.length > 0 ? null : reply.text,
    refusal: null,
    annotations: [],
  }
  if (reply.calls.length > 0)
    message.tool_calls = reply.calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }))
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH[reply.finish] }],
    usage: chatUsage(reply),
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  }
}

/**
 * The streamed chunks: a first delta with the role, the text in fragments, each tool call as a
 * first fragment with its id, type and name (empty arguments) and then argument fragments, a
 * chunk with the finish reason, the usage chunk (`choices: []`) when `include_usage`, `[DONE]`.
 */
export function chatChunks(answer: ChatAnswer, reply: ModelReply, includeUsage: boolean): string[] {
  const chunk = (choices: unknown[], usage?: unknown) =>
    sseEvent({
      id: answer.id,
      object: 'chat.completion.chunk',
      created: answer.created,
      model: answer.model,
      service_tier: 'default',
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
    })
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
    index: 0,
    delta: d,
    logprobs: null,
    finish_reason: finish,
  })
  const events = [chunk([delta({ role: 'assistant', content: '', refusal: null })])]
  for (const piece of fragments(reply.text)) events.push(chunk([delta({ content: piece })]))
  reply.calls.forEach((call, index) => {
    events.push(
      chunk([
        delta({
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        }),
      ]),
    )
    for (const piece of fragments(call.arguments))
      events.push(chunk([delta({ tool_calls: [{ index, function: { arguments: piece } }] })]))
  })
  events.push(chunk([delta({}, FINISH[reply.finish])]))
  if (includeUsage) events.push(chunk([], chatUsage(reply)))
  events.push(sseEvent('[DONE]'))
  return events
}
