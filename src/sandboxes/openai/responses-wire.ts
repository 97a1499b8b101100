import type { ModelReply } from '../model-kit/conversation.ts'
import { openaiIds } from '../model-kit/ids.ts'
import { fragments, sseEvent } from '../model-kit/sse.ts'
import type { ResponsesRequest } from './responses-request.ts'

/**
 * Responses answers in OpenAI's shapes (the `Response` object and, streamed, `ResponseStreamEvent`s
 * as `event:`/`data:` pairs numbered by `sequence_number`): `response.created`,
 * `response.in_progress`, each output item added, its parts and deltas, done, then
 * `response.completed` (or `response.incomplete` when it stopped for length).
 */

export interface ResponseAnswer {
  id: string
  createdAt: number
  model: string
  request: ResponsesRequest
}

type Item = Record<string, unknown>

const textPart = (text: string) => ({ type: 'output_text', text, annotations: [], logprobs: [] })

/** The output items: the text as one message, then one function call item per call. */
export function outputItems(reply: ModelReply, status: 'completed' | 'incomplete'): Item[] {
  const items: Item[] = []
  if (reply.text || reply.calls.length === 0)
    items.push({
      id: openaiIds.message(),
      type: 'message',
      status,
      role: 'assistant',
      content: [textPart(reply.text)],
    })
  for (const call of reply.calls)
    items.push({
      id: openaiIds.functionCall(),
      type: 'function_call',
      status,
      arguments: call.arguments,
      call_id: call.id,
      name: call.name,
    })
  return items
}

function responseObject(answer: ResponseAnswer, reply: ModelReply | null, output: Item[]): Item {
  const { request } = answer
  const incomplete = reply?.finish === 'length'
  const { inputTokens = 0, outputTokens = 0 } = reply?.usage ?? {}
  return {
    id: answer.id,
    object: 'response',
    created_at: answer.createdAt,
    status: reply === null ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    completed_at: reply === null || incomplete ? null : answer.createdAt,
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: request.instructions,
    max_output_tokens: request.maxOutputTokens,
    max_tool_calls: null,
    model: answer.model,
    output,
    parallel_tool_calls: request.conversation.parallelToolCalls,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: request.store,
    temperature: 1,
    text: { format: request.format, verbosity: 'medium' },
    tool_choice: request.toolChoice,
    tools: request.tools,
    top_logprobs: 0,
    top_p: 1,
    truncation: 'disabled',
    // A response still in progress has no usage (OpenAI's example shows null; the file's
    // `ResponseUsage` is an object, so the sandbox leaves it out until the end).
    ...(reply === null
      ? {}
      : {
          usage: {
            input_tokens: inputTokens,
            input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
            output_tokens: outputTokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: inputTokens + outputTokens,
          },
        }),
    metadata: {},
  }
}

export function responseJson(answer: ResponseAnswer, reply: ModelReply): Item {
  return responseObject(
    answer,
    reply,
    outputItems(reply, reply.finish === 'length' ? 'incomplete' : 'completed'),
  )
}

export function responseEvents(answer: ResponseAnswer, reply: ModelReply): string[] {
  const events: string[] = []
  const emit = (type: string, fields: Record<string, unknown>) =>
    events.push(sseEvent({ type, sequence_number: events.length, ...fields }, type))
  const status = reply.finish === 'length' ? 'incomplete' : 'completed'
  const items = outputItems(reply, status)
  emit('response.created', { response: responseObject(answer, null, []) })
  emit('response.in_progress', { response: responseObject(answer, null, []) })
  items.forEach((item, outputIndex) => {
    const common = { item_id: item.id, output_index: outputIndex }
    if (item.type === 'message') {
      emit('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', content: [] },
      })
      emit('response.content_part.added', { ...common, content_index: 0, part: textPart('') })
      for (const delta of fragments(reply.text))
        emit('response.output_text.delta', { ...common, content_index: 0, delta, logprobs: [] })
      emit('response.output_text.done', { ...common, content_index: 0, text: reply.text, logprobs: [] })
      emit('response.content_part.done', { ...common, content_index: 0, part: textPart(reply.text) })
    } else {
      emit('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', arguments: '' },
      })
      for (const delta of fragments(item.arguments as string))
        emit('response.function_call_arguments.delta', { ...common, delta })
      emit('response.function_call_arguments.done', { ...common, name: item.name, arguments: item.arguments })
    }
    emit('response.output_item.done', { output_index: outputIndex, item })
  })
  emit(status === 'incomplete' ? 'response.incomplete' : 'response.completed', {
    response: responseObject(answer, reply, items),
  })
  return events
}
