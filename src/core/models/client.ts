import type { AgentNetworks } from '../http/public-only.ts'
import type { ModelProtocol } from '../store/schema.ts'

/**
 * The project's own port to a language model (docs/model-agents.md, "Model connections"): one call
 * in, one answer out. The loop, the transcript and the budgets are Switchyard's; a provider library
 * lives behind this interface only (providers/), so core never depends on its shapes.
 */

/** A tool call the model asked for. `input` is parsed JSON, or the raw text when it did not parse. */
export interface ModelToolCall {
  id: string
  name: string
  input: unknown
  /** Why the call cannot be run as it stands (arguments that are not JSON). */
  invalid?: string
}

/** The transcript a model sees, Switchyard's shape: stored as plain JSON on the run's timeline. */
export type TranscriptMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; calls: ModelToolCall[] }
  | { role: 'tool'; results: ToolResultMessage[] }

export interface ToolResultMessage {
  callId: string
  name: string
  /** What the model reads: the tool's output, or words saying why there is none. */
  output: unknown
  isError: boolean
}

export interface OfferedTool {
  name: string
  description: string
  parameters: Record<string, unknown>
  strict?: boolean
}

export interface ModelRequest {
  model: string
  system: string
  messages: TranscriptMessage[]
  tools: OfferedTool[]
  /** A JSON Schema the final answer must satisfy, passed on as the provider's structured output. */
  outputSchema?: Record<string, unknown>
  signal?: AbortSignal
}

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other'

export interface ModelAnswer {
  text: string
  calls: ModelToolCall[]
  finishReason: FinishReason
  usage: { inputTokens: number; outputTokens: number }
  /** The provider's id of the request (its request id header), for a support ticket. */
  requestId: string | null
}

export interface ModelEndpoint {
  protocol: ModelProtocol
  baseUrl: string
  apiKey: string | null
  /** The networks a call may reach (public-only.ts): checked on the address actually connected to. */
  networks?: AgentNetworks
}

export interface ModelClient {
  call(request: ModelRequest): Promise<ModelAnswer>
}

export type ModelClientFactory = (endpoint: ModelEndpoint) => ModelClient
