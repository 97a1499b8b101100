import type {
  Conversation,
  ToolCall,
  ToolChoice,
  ToolDefinition,
  ToolResult,
  Turn,
} from '../model-kit/conversation.ts'
import { isRecord } from '../model-kit/refusal.ts'
import { fieldRequired, refuse } from './errors.ts'

/**
 * A Messages request (`POST /v1/messages`) read into the sandbox's conversation, refusing what
 * Anthropic refuses, in its words: a missing `max_tokens`, roles other than user and assistant,
 * a `tool_use` not answered by a `tool_result` in the next message, and a `tool_result` whose
 * `tool_use` is not in the previous message.
 */

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/

function blocks(content: unknown, where: string): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (content === undefined) return fieldRequired(`${where}.content`)
  if (!Array.isArray(content)) return refuse(`${where}.content: Input should be a valid list`)
  return content.map((block, j) => {
    if (!isRecord(block)) return refuse(`${where}.content.${j}: Input should be a valid dictionary or object`)
    if (typeof block.type !== 'string') return fieldRequired(`${where}.content.${j}.type`)
    return block
  })
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((b) => (isRecord(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .join('')
}

function readSystem(raw: unknown): string {
  if (raw === undefined || raw === null) return ''
  if (typeof raw === 'string') return raw
  if (!Array.isArray(raw)) return refuse('system: Input should be a valid string or list')
  return raw.map((b) => (isRecord(b) && typeof b.text === 'string' ? b.text : '')).join('\n\n')
}

function readMessages(raw: unknown): Turn[] {
  if (raw === undefined) return fieldRequired('messages')
  if (!Array.isArray(raw)) return refuse('messages: Input should be a valid list')
  if (raw.length === 0) refuse('messages: at least one message is required')
  const turns: Turn[] = []
  /** The tool_use ids of the previous message (an assistant's), which this message must answer. */
  let pending: { at: number; ids: string[] } | undefined
  raw.forEach((message, i) => {
    if (!isRecord(message)) return refuse(`messages.${i}: Input should be a valid dictionary or object`)
    if (message.role !== 'user' && message.role !== 'assistant')
      return refuse(`messages.${i}.role: Input should be 'user' or 'assistant'`)
    const content = blocks(message.content, `messages.${i}`)
    if (message.role === 'assistant') {
      if (pending) unanswered(pending.at, pending.ids)
      const calls: ToolCall[] = []
      let text = ''
      content.forEach((block, j) => {
        if (block.type === 'text') text += typeof block.text === 'string' ? block.text : ''
        if (block.type !== 'tool_use') return
        if (typeof block.id !== 'string') return fieldRequired(`messages.${i}.content.${j}.tool_use.id`)
        if (typeof block.name !== 'string') return fieldRequired(`messages.${i}.content.${j}.tool_use.name`)
        if (!isRecord(block.input))
          return refuse(`messages.${i}.content.${j}.tool_use.input: Input should be a valid dictionary`)
        calls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) })
      })
      turns.push({ role: 'assistant', text, calls })
      pending = calls.length > 0 ? { at: i, ids: calls.map((c) => c.id) } : undefined
      return
    }
    const results: ToolResult[] = []
    let text = ''
    content.forEach((block, j) => {
      if (block.type === 'text') text += typeof block.text === 'string' ? block.text : ''
      if (block.type !== 'tool_result') return
      if (typeof block.tool_use_id !== 'string')
        return fieldRequired(`messages.${i}.content.${j}.tool_result.tool_use_id`)
      if (!pending?.ids.includes(block.tool_use_id))
        refuse(
          `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        )
      results.push({
        callId: block.tool_use_id,
        content: resultText(block.content),
        isError: block.is_error === true,
      })
    })
    if (pending) {
      const missing = pending.ids.filter((id) => !results.some((r) => r.callId === id))
      if (missing.length > 0) unanswered(pending.at, missing)
    }
    pending = undefined
    if (results.length > 0) turns.push({ role: 'tool', results })
    if (text || results.length === 0) turns.push({ role: 'user', text })
  })
  if (pending) unanswered(pending.at, pending.ids)
  return turns
}

function unanswered(at: number, ids: string[]): never {
  return refuse(
    `messages.${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  )
}

function readTools(raw: unknown): ToolDefinition[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) return refuse('tools: Input should be a valid list')
  return raw.flatMap((tool, i): ToolDefinition[] => {
    if (!isRecord(tool)) return refuse(`tools.${i}: Input should be a valid dictionary or object`)
    // Anthropic's server tools (web search, code execution, …) carry a versioned `type`; the
    // sandbox model never calls them.
    if (tool.type !== undefined && tool.type !== 'custom') return []
    if (tool.name === undefined) return fieldRequired(`tools.${i}.custom.name`)
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
      return refuse(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`)
    if (tool.input_schema === undefined) return fieldRequired(`tools.${i}.custom.input_schema`)
    if (!isRecord(tool.input_schema))
      return refuse(`tools.${i}.custom.input_schema: Input should be a valid dictionary`)
    if (tool.input_schema.type !== 'object')
      return refuse(`tools.${i}.custom.input_schema.type: Input should be 'object'`)
    return [
      {
        name: tool.name,
        description: typeof tool.description === 'string' ? tool.description : '',
        parameters: tool.input_schema,
      },
    ]
  })
}

/** `{type: auto|any|tool|none, name, disable_parallel_tool_use}`. */
function readToolChoice(raw: unknown, tools: ToolDefinition[]): { choice: ToolChoice; parallel: boolean } {
  if (raw === undefined || raw === null) return { choice: 'auto', parallel: true }
  if (!isRecord(raw)) return refuse('tool_choice: Input should be a valid dictionary or object')
  const parallel = raw.disable_parallel_tool_use !== true
  switch (raw.type) {
    case 'auto':
      return { choice: 'auto', parallel }
    case 'any':
      return { choice: 'required', parallel }
    case 'none':
      return { choice: 'none', parallel }
    case 'tool':
      if (typeof raw.name !== 'string') return fieldRequired('tool_choice.tool.name')
      if (!tools.some((t) => t.name === raw.name))
        refuse(`tool_choice.name: tool '${raw.name}' not found in tools`)
      return { choice: { name: raw.name }, parallel }
    default:
      return refuse(
        "tool_choice: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'",
      )
  }
}

/** Structured outputs: `output_format` (the beta) or `output_config.format`, a `json_schema`. */
function readOutputSchema(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const config = isRecord(body.output_config) ? body.output_config.format : undefined
  const format = isRecord(body.output_format) ? body.output_format : isRecord(config) ? config : undefined
  return format?.type === 'json_schema' && isRecord(format.schema) ? format.schema : undefined
}

export interface MessagesRequest {
  conversation: Conversation
  stream: boolean
}

export function readMessagesRequest(body: Record<string, unknown>): MessagesRequest {
  if (body.model === undefined) fieldRequired('model')
  if (typeof body.model !== 'string') refuse('model: Input should be a valid string')
  if (body.max_tokens === undefined) fieldRequired('max_tokens')
  const max = body.max_tokens
  if (typeof max !== 'number' || !Number.isInteger(max))
    return refuse('max_tokens: Input should be a valid integer')
  if (max < 1) refuse('max_tokens: Input should be greater than or equal to 1')
  const turns = readMessages(body.messages)
  const tools = readTools(body.tools)
  const { choice, parallel } = readToolChoice(body.tool_choice, tools)
  return {
    conversation: {
      model: body.model as string,
      system: readSystem(body.system),
      turns,
      tools,
      toolChoice: choice,
      parallelToolCalls: parallel,
      maxOutputTokens: max,
      outputSchema: readOutputSchema(body),
    },
    stream: body.stream === true,
  }
}
