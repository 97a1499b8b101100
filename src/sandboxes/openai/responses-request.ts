import type { Conversation, ToolDefinition, Turn } from '../model-kit/conversation.ts'
import { isRecord } from '../model-kit/refusal.ts'
import { invalidValue, missing, refuse, wrongType } from './errors.ts'
import { parseOutputFormat, parseToolChoice, toolName } from './request-parts.ts'
import { strictSchemaProblem } from './strict-schema.ts'

/**
 * A Responses request (`POST /v1/responses`) read into the sandbox's conversation. The sandbox
 * keeps no responses, so `previous_response_id` and item references are refused as OpenAI
 * refuses ids it does not have; clients that replay the whole input (the AI SDK, the Agents SDK)
 * need neither. A function call must have its output in the input, and an output its call.
 */

const ROLES = ['assistant', 'system', 'developer', 'user'] as const

function contentText(content: unknown, param: string): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return wrongType(param, 'one of a string or array of objects', content)
  return content
    .map((part, i) => {
      if (!isRecord(part)) return wrongType(`${param}[${i}]`, 'an object', part)
      if (part.type === 'input_text' || part.type === 'output_text' || part.type === 'refusal') {
        const text = part.type === 'refusal' ? part.refusal : part.text
        if (typeof text !== 'string') return missing(`${param}[${i}].text`)
        return text
      }
      return ''
    })
    .join('')
}

function outputText(output: unknown, param: string): string {
  if (typeof output === 'string') return output
  if (Array.isArray(output)) return contentText(output, param)
  return missing(param)
}

function readInput(raw: unknown, instructions: string): { system: string; turns: Turn[] } {
  if (raw === undefined) return missing('input')
  if (typeof raw === 'string') return { system: instructions, turns: [{ role: 'user', text: raw }] }
  if (!Array.isArray(raw)) return wrongType('input', 'one of a string or array of objects', raw)
  const system = instructions ? [instructions] : []
  const turns: Turn[] = []
  const calls = new Set<string>()
  const answered = new Set<string>()
  raw.forEach((item, i) => {
    if (!isRecord(item)) return wrongType(`input[${i}]`, 'an object', item)
    const type = item.type ?? 'message'
    const last = turns[turns.length - 1]
    if (type === 'message') {
      if (item.role === undefined) return missing(`input[${i}].role`)
      if (!(ROLES as readonly unknown[]).includes(item.role))
        return invalidValue(`input[${i}].role`, item.role, ROLES)
      const text = contentText(item.content, `input[${i}].content`)
      if (item.role === 'system' || item.role === 'developer') system.push(text)
      else if (item.role === 'user') turns.push({ role: 'user', text })
      else if (last?.role === 'assistant' && last.calls.length === 0) last.text += text
      else turns.push({ role: 'assistant', text, calls: [] })
    } else if (type === 'function_call') {
      if (typeof item.call_id !== 'string') return missing(`input[${i}].call_id`)
      const name = toolName(item.name, `input[${i}].name`)
      if (typeof item.arguments !== 'string') return missing(`input[${i}].arguments`)
      calls.add(item.call_id)
      const call = { id: item.call_id, name, arguments: item.arguments }
      if (last?.role === 'assistant') last.calls.push(call)
      else turns.push({ role: 'assistant', text: '', calls: [call] })
    } else if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string') return missing(`input[${i}].call_id`)
      if (item.output === undefined) return missing(`input[${i}].output`)
      if (!calls.has(item.call_id))
        refuse(`No tool call found for function call output with call_id ${item.call_id}.`, 'input')
      answered.add(item.call_id)
      const result = {
        callId: item.call_id,
        content: outputText(item.output, `input[${i}].output`),
        isError: false,
      }
      if (last?.role === 'tool') last.results.push(result)
      else turns.push({ role: 'tool', results: [result] })
    } else if (type === 'item_reference') {
      refuse(`Item with id '${String(item.id)}' not found.`, 'input')
    } else if (type === 'reasoning') {
      // Reasoning items the client replays carry nothing the sandbox model reads.
    } else {
      invalidValue(`input[${i}].type`, type, [
        'message',
        'function_call',
        'function_call_output',
        'item_reference',
        'reasoning',
      ])
    }
  })
  const unanswered = [...calls].find((id) => !answered.has(id))
  if (unanswered) refuse(`No tool output found for function call ${unanswered}.`, 'input')
  return { system: system.join('\n\n'), turns }
}

function readTools(raw: unknown): ToolDefinition[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) return wrongType('tools', 'an array', raw)
  return raw.flatMap((tool, i): ToolDefinition[] => {
    if (!isRecord(tool)) return wrongType(`tools[${i}]`, 'an object', tool)
    if (tool.type !== 'function') return []
    const name = toolName(tool.name, `tools[${i}].name`)
    const parameters = tool.parameters ?? { type: 'object', properties: {} }
    if (!isRecord(parameters)) return wrongType(`tools[${i}].parameters`, 'an object', parameters)
    // The file says `strict` defaults to true for Responses function tools, but the clients
    // send it explicitly; the sandbox holds a schema to strict mode only when told `strict: true`.
    if (tool.strict === true) {
      const problem = strictSchemaProblem(parameters)
      if (problem)
        refuse(
          `Invalid schema for function '${name}': ${problem}`,
          `tools[${i}].parameters`,
          'invalid_function_parameters',
        )
    }
    return [{ name, description: typeof tool.description === 'string' ? tool.description : '', parameters }]
  })
}

export interface ResponsesRequest {
  conversation: Conversation
  stream: boolean
  instructions: string | null
  /** The function tools as the answer echoes them. */
  tools: unknown[]
  toolChoice: unknown
  maxOutputTokens: number | null
  store: boolean
  format: Record<string, unknown>
}

export function readResponsesRequest(body: Record<string, unknown>): ResponsesRequest {
  if (body.model === undefined) missing('model')
  if (typeof body.model !== 'string') wrongType('model', 'a string', body.model)
  if (typeof body.previous_response_id === 'string')
    refuse(
      `Previous response with id '${body.previous_response_id}' not found.`,
      'previous_response_id',
      'previous_response_not_found',
    )
  const instructions = typeof body.instructions === 'string' ? body.instructions : null
  const { system, turns } = readInput(body.input, instructions ?? '')
  const tools = readTools(body.tools)
  const toolChoice = parseToolChoice(body.tool_choice, tools, 'tool_choice')
  const max = body.max_output_tokens
  if (max !== undefined && max !== null && (typeof max !== 'number' || !Number.isInteger(max) || max < 16))
    refuse(
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${String(max)} instead.`,
      'max_output_tokens',
      'integer_below_min_value',
    )
  const text = isRecord(body.text) ? body.text : {}
  const format = isRecord(text.format) ? text.format : { type: 'text' }
  const outputSchema = format.type === 'json_schema' ? parseOutputFormat(format, 'text.format') : undefined
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
    instructions,
    tools: (Array.isArray(body.tools) ? body.tools : []).filter((t) => isRecord(t) && t.type === 'function'),
    toolChoice: body.tool_choice ?? 'auto',
    maxOutputTokens: typeof max === 'number' ? max : null,
    store: body.store !== false,
    format,
  }
}
