import type { FinishReason, ModelReply } from '../model-kit/conversation.ts'
import { fragments, sseEvent } from '../model-kit/sse.ts'

/**
 * Messages answers in Anthropic's shapes (the `Message` of its SDK's types and, streamed, the
 * events `message_start`, `content_block_start`, `ping`, `content_block_delta`,
 * `content_block_stop`, `message_delta`, `message_stop`, each as `event:` and `data:`).
 */

export interface MessageAnswer {
  id: string
  model: string
}

const STOP: Record<FinishReason, string> = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' }

function usage(inputTokens: number, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    server_tool_use: null,
    service_tier: 'standard',
  }
}

/**
 * A call's `input` object. A non-streamed answer can only carry an object, so arguments that do
 * not parse as one (the `malformed_arguments` fault) arrive as `{}`, the empty input Anthropic's
 * models are known to send; streamed, the broken text is sent as it is.
 */
export function inputObject(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/** Text blocks carry no `citations` when there are none, as Anthropic sends them (the AI SDK refuses a null). */
function contentBlocks(reply: ModelReply): Array<Record<string, unknown>> {
  const content: Array<Record<string, unknown>> = []
  if (reply.text || reply.calls.length === 0) content.push({ type: 'text', text: reply.text })
  for (const call of reply.calls)
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: inputObject(call.arguments),
      caller: { type: 'direct' },
    })
  return content
}

function envelope(
  answer: MessageAnswer,
  content: unknown[],
  stop: string | null,
  use: Record<string, unknown>,
) {
  return {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: use,
  }
}

export function messageJson(answer: MessageAnswer, reply: ModelReply): Record<string, unknown> {
  return envelope(
    answer,
    contentBlocks(reply),
    STOP[reply.finish],
    usage(reply.usage.inputTokens, reply.usage.outputTokens),
  )
}

export function messageEvents(answer: MessageAnswer, reply: ModelReply): string[] {
  const events: string[] = []
  const emit = (type: string, fields: Record<string, unknown>) =>
    events.push(sseEvent({ type, ...fields }, type))
  // Anthropic's message_start counts the output tokens so far (one); message_delta has the total.
  emit('message_start', { message: envelope(answer, [], null, usage(reply.usage.inputTokens, 1)) })
  const blocks = contentBlocks(reply)
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } })
      if (index === 0) emit('ping', {})
      for (const text of fragments(reply.text))
        emit('content_block_delta', { index, delta: { type: 'text_delta', text } })
    } else {
      const call = reply.calls[index - (blocks[0]?.type === 'text' ? 1 : 0)]
      emit('content_block_start', { index, content_block: { ...block, input: {} } })
      if (index === 0) emit('ping', {})
      for (const partial_json of fragments(call?.arguments ?? ''))
        emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } })
    }
    emit('content_block_stop', { index })
  })
  emit('message_delta', {
    delta: { stop_reason: STOP[reply.finish], stop_sequence: null, stop_details: null },
    usage: {
      input_tokens: reply.usage.inputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: reply.usage.outputTokens,
      server_tool_use: null,
    },
  })
  emit('message_stop', {})
  return events
}
