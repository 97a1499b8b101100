/**
 * What the model sandboxes' "model" reads and answers, the same for every provider: each
 * provider's request parser turns its wire format into a Conversation, and its encoders turn a
 * ModelReply into its wire format (docs/sandbox.md, "Model sandbox").
 */

/** A tool the request offers the model. */
export interface ToolDefinition {
  name: string
  description: string
  /** The tool's JSON Schema, as sent. */
  parameters: Record<string, unknown>
}

/** A tool call, as the model made it: `arguments` is the JSON text (which a fault may break). */
export interface ToolCall {
  id: string
  name: string
  arguments: string
}

export interface ToolResult {
  callId: string
  /** The result as text (a provider's content parts joined). */
  content: string
  isError: boolean
}

export type Turn =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; calls: ToolCall[] }
  | { role: 'tool'; results: ToolResult[] }

/** `auto` lets the model choose; `required` makes it call some tool; `{name}` that one. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string }

export interface Conversation {
  model: string
  /** The instructions: system prompts (and OpenAI's developer messages), joined by blank lines. */
  system: string
  turns: Turn[]
  tools: ToolDefinition[]
  toolChoice: ToolChoice
  /** Whether the model may make several calls in one answer. */
  parallelToolCalls: boolean
  /** The most output tokens the answer may have (docs/sandbox.md, "Token counts"). */
  maxOutputTokens?: number
  /** A JSON Schema the final text must be a JSON document of (OpenAI's structured outputs). */
  outputSchema?: Record<string, unknown>
}

/** Why the model stopped: the neutral names each provider maps to its own. */
export type FinishReason = 'stop' | 'tool_calls' | 'length'

export interface Usage {
  inputTokens: number
  outputTokens: number
}

export interface ModelReply {
  text: string
  calls: ToolCall[]
  finish: FinishReason
  usage: Usage
}
