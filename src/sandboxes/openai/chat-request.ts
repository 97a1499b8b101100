import type { Conversation, ToolCall, ToolChoice, ToolDefinition, Turn } from '../model-kit/conversation.ts'
import { isRecord } from '../model-kit/refusal.ts'
import { invalidValue, missing, refuse, wrongType } from './errors.ts'
import { parseOutputFormat, parseToolChoice, toolName } from './request-parts.ts'
import { strictSchemaProblem } from './strict-schema.ts'

/**
 * A Chat Completions request (`POST /v1/chat/completions`) read into the sandbox's conversation,
 * refusing what OpenAI refuses, in its words: roles it does not know, a tool call without a tool
 * message answering it, a tool message answering no call, and strict schemas that break the rules.
 */

const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'] as const

/** A message's text: a string, or its text parts joined. */
function contentText(content: unknown, param: string): string {
  if (content === undefined || content === null) return ''
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return wrongType(param, 'one of a string or array of objects', content)
  return content
    .map((part, i) => {
      if (!isRecord(part)) return wrongType(`${param}[${i}]`, 'an object', part)
      if (part.type === 'text' || part.type === 'refusal') {
        const text = part.type === 'text' ? part.text : part.refusal
        if (typeof text !== 'string') return missing(`${param}[${i}].${String(part.type)}`)
        return text
      }
      return ''
    })
    .join('')
}

function readCalls(raw: unknown, at: number): ToolCall[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) return wrongType(`messages[${at}].tool_calls`, 'an array', raw)
  return raw.map((call, j) => {
    const where = `messages[${at}].tool_calls[${j}]`
    if (!isRecord(call)) return wrongType(where, 'an object', call)
    if (typeof call.id !== 'string') return missing(`${where}.id`)
    if (!isRecord(call.function)) return missing(`${where}.function`)
    if (typeof call.function.name !== 'string') return missing(`${where}.function.name`)
    if (typeof call.function.arguments !== 'string') return missing(`${where}.function.arguments`)
    return { id: call.id, name: call.function.name, arguments: call.function.arguments }
  })
}

/** The messages as turns, with OpenAI's pairing of tool calls and tool messages checked. */
function readMessages(raw: unknown): { system: string; turns: Turn[] } {
  if (raw === undefined) return missing('messages')
  if (!Array.isArray(raw)) return wrongType('messages', 'an array', raw)
  if (raw.length === 0)
    refuse(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    )
  const system: string[] = []
  const turns: Turn[] = []
  /** The calls of the last assistant message still waiting for their tool messages, and its index. */
  let open: { at: number; ids: Set<string>; all: Set<string> } | undefined
  const closeOpen = () => {
    if (open && open.ids.size > 0)
      refuse(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.ids].join(', ')}`,
        `messages.[${open.at}].role`,
      )
    open = undefined
  }
  raw.forEach((message, i) => {
    if (!isRecord(message)) return wrongType(`messages[${i}]`, 'an object', message)
    if (message.role === undefined) return missing(`messages[${i}].role`)
    if (!(ROLES as readonly unknown[]).includes(message.role))
      return invalidValue(`messages[${i}].role`, message.role, ROLES)
    const text = contentText(message.content, `messages[${i}].content`)
    if (message.role === 'tool') {
      if (typeof message.tool_call_id !== 'string') return missing(`messages[${i}].tool_call_id`)
      if (!open?.all.has(message.tool_call_id))
        refuse(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        )
      open?.ids.delete(message.tool_call_id)
      const result = { callId: message.tool_call_id, content: text, isError: false }
      const last = turns[turns.length - 1]
      if (last?.role === 'tool') last.results.push(result)
      else turns.push({ role: 'tool', results: [result] })
      return
    }
    closeOpen()
    if (message.role === 'system' || message.role === 'developer') system.push(text)
    else if (message.role === 'assistant') {
      const calls = readCalls(message.tool_calls, i)
      turns.push({ role: 'assistant', text, calls })
      if (calls.length > 0)
        open = { at: i, ids: new Set(calls.map((c) => c.id)), all: new Set(calls.map((c) => c.id)) }
    } else turns.push({ role: 'user', text })
  })
  closeOpen()
  return { system: system.join('\n\n'), turns }
}

function readTools(raw: unknown): ToolDefinition[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) return wrongType('tools', 'an array', raw)
  return raw.flatMap((tool, i): ToolDefinition[] => {
    if (!isRecord(tool)) return wrongType(`tools[${i}]`, 'an object', tool)
    if (tool.type === undefined) return missing(`tools[${i}].type`)
    if (tool.type === 'custom') return []
    if (tool.type !== 'function') return invalidValue(`tools[${i}].type`, tool.type, ['function', 'custom'])
    if (!isRecord(tool.function)) return missing(`tools[${i}].function`)
    const fn = tool.function
    const name = toolName(fn.name, `tools[${i}].function.name`)
    const parameters = fn.parameters ?? { type: 'object', properties: {} }
    if (!isRecord(parameters)) return wrongType(`tools[${i}].function.parameters`, 'an object', parameters)
    if (fn.strict === true) {
      const problem = strictSchemaProblem(parameters)
      if (problem)
        refuse(
          `Invalid schema for function '${name}': ${problem}`,
          `tools[${i}].function.parameters`,
          'invalid_function_parameters',
        )
    }
    return [{ name, description: typeof fn.description === 'string' ? fn.description : '', parameters }]
  })
}

/** The chat tool choice: `none|auto|required` or `{type: 'function', function: {name}}`. */
function readToolChoice(raw: unknown, tools: ToolDefinition[]): ToolChoice {
  if (isRecord(raw) && raw.type === 'function') {
    const fn = isRecord(raw.function) ? raw.function : {}
    return parseToolChoice({ type: 'function', name: fn.name }, tools, 'tool_choice')
  }
  return parseToolChoice(raw, tools, 'tool_choice')
}

export interface ChatRequest {
  conversation: Conversation
  stream: boolean
  includeUsage: boolean
}

export function readChatRequest(body: Record<string, unknown>): ChatRequest {
  if (body.model === undefined) missing('model')
  if (typeof body.model !== 'string') wrongType('model', 'a string', body.model)
  const { system, turns } = readMessages(body.messages)
  const tools = readTools(body.tools)
  const toolChoice = readToolChoice(body.tool_choice, tools)
  const max = body.max_completion_tokens ?? body.max_tokens
  if (max !== undefined && max !== null && (typeof max !== 'number' || !Number.isInteger(max) || max < 1))
    refuse(
      `Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got ${String(max)} instead.`,
      'max_tokens',
      'integer_below_min_value',
    )
  const format = isRecord(body.response_format) ? body.response_format : undefined
  const outputSchema =
    format?.type === 'json_schema' ? parseOutputFormat(format.json_schema, 'response_format') : undefined
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {}
  return {
    conversation: {
      model: body.model as string,
      system,
      turns,
      tools,
      toolChoice,
      parallelToolCalls: body.parallel_tool_calls !== false,
      maxOutputTokens: typeof max === 'number' ? max : undefined,
      outputSchema,
    },
    stream: body.stream === true,
    includeUsage: streamOptions.include_usage === true,
  }
}
