import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { APICallError } from 'ai'
import { AppError } from '../../errors.ts'
import { AddressRefused, reachable, type AgentNetworks } from '../../http/public-only.ts'
import { wholeAnswerFetch } from '../../http/whole-answer-fetch.ts'
import type {
  FinishReason,
  ModelAnswer,
  ModelClient,
  ModelEndpoint,
  ModelRequest,
  ModelToolCall,
  TranscriptMessage,
} from '../client.ts'

/** A provider's model as its own specification (LanguageModelV3) describes it: what every provider here makes. */
type ProviderModel = ReturnType<ReturnType<typeof createOpenAI>['chat']>
type CallOptions = Parameters<ProviderModel['doGenerate']>[0]
type Prompt = CallOptions['prompt']
type FunctionTool = Extract<NonNullable<CallOptions['tools']>[number], { type: 'function' }>

/**
 * The model port on the Vercel AI SDK 6.x (pinned; docs/model-agents.md says why not 7.x): the only
 * file that names it. One call of the provider's model per model call, with tools the model may ask
 * for and nothing that runs them: Switchyard's loop runs tools, durably.
 *
 * The provider's model is called directly (its `doGenerate`), not through `generateText`: that one
 * checks every message of the prompt against its own schemas on every call, and the transcript
 * Switchyard sends is its own plain data, built by toPrompt below, so those checks cost most of a
 * call's time in the service (a CPU profile of bench/model-agents.ts) and grew with every call
 * of a run. The provider still checks what comes back.
 */
export const aiSdkClient = (endpoint: ModelEndpoint): ModelClient => {
  // A run's client makes all its calls (runner.ts), mostly to one model: its provider is made once.
  const models = new Map<string, ProviderModel>()
  return {
    call: (request) => {
      let model = models.get(request.model)
      if (!model) models.set(request.model, (model = languageModel(endpoint, request.model)))
      return callModel(model, request)
    },
  }
}

async function callModel(model: ProviderModel, request: ModelRequest): Promise<ModelAnswer> {
  const tools = request.tools.map((t): FunctionTool => ({
    type: 'function',
    name: t.name,
    description: t.description,
    inputSchema: t.parameters as FunctionTool['inputSchema'],
    ...(t.strict ? { strict: true } : {}),
  }))
  try {
    const result = await model.doGenerate({
      prompt: toPrompt(request.system, request.messages),
      ...(tools.length ? { tools, toolChoice: { type: 'auto' as const } } : {}),
      ...(request.outputSchema
        ? { responseFormat: { type: 'json' as const, schema: request.outputSchema as never } }
        : {}),
      abortSignal: request.signal,
    })
    const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
    const calls = result.content.flatMap((part) =>
      part.type === 'tool-call' && !part.providerExecuted ? [toolCallOf(part)] : [],
    )
    const headers = result.response?.headers ?? {}
    return {
      text,
      calls,
      finishReason: finishOf(result.finishReason.unified),
      usage: {
        inputTokens: result.usage.inputTokens.total ?? 0,
        outputTokens: result.usage.outputTokens.total ?? 0,
      },
      requestId: headers['x-request-id'] ?? headers['request-id'] ?? result.response?.id ?? null,
    } satisfies ModelAnswer
  } catch (err) {
    throw providerError(err)
  }
}

/** A call's arguments arrive as JSON text: none is `{}`, and text that does not parse is kept, marked. */
function toolCallOf(part: { toolCallId: string; toolName: string; input: string }): ModelToolCall {
  const call = { id: part.toolCallId, name: part.toolName }
  if (!part.input.trim()) return { ...call, input: {} }
  try {
    return { ...call, input: JSON.parse(part.input) as unknown }
  } catch {
    return { ...call, input: part.input, invalid: 'its arguments are not valid JSON' }
  }
}

/**
 * The SDK's fetch: one that reads each answer whole (http/whole-answer-fetch.ts), and reaches only the
 * allowed networks (public-only.ts) when they are limited: the base URL was checked when the
 * connection was saved, and a name's address is checked here, when connecting, so a name that later
 * resolves to a private address is refused too.
 */
function fetchWithin(networks: AgentNetworks | undefined): { fetch: typeof globalThis.fetch } {
  if (!networks || networks === 'any') return { fetch: wholeAnswerFetch() }
  return { fetch: wholeAnswerFetch((url) => reachable(url, networks).dispatcher) }
}

function languageModel(endpoint: ModelEndpoint, name: string): ProviderModel {
  const apiKey = endpoint.apiKey ?? 'none'
  const fetch = fetchWithin(endpoint.networks)
  switch (endpoint.protocol) {
    case 'openai-chat':
      return createOpenAI({ baseURL: endpoint.baseUrl, apiKey, ...fetch }).chat(name)
    case 'openai-responses':
      return createOpenAI({ baseURL: endpoint.baseUrl, apiKey, ...fetch }).responses(name)
    case 'anthropic':
      return createAnthropic({ baseURL: `${endpoint.baseUrl.replace(/\/$/, '')}/v1`, apiKey, ...fetch })(name)
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'compatible',
        baseURL: endpoint.baseUrl,
        ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
        includeUsage: true,
        ...fetch,
      }).chatModel(name)
  }
}

function finishOf(reason: string): FinishReason {
  return (['stop', 'tool-calls', 'length', 'content-filter', 'error'] as const).includes(reason as never)
    ? (reason as FinishReason)
    : 'other'
}

/** Switchyard's transcript in the provider's prompt shape: plain data both ways. */
function toPrompt(system: string, messages: TranscriptMessage[]): Prompt {
  const prompt: Prompt = system ? [{ role: 'system', content: system }] : []
  for (const m of messages) {
    if (m.role === 'user') prompt.push({ role: 'user', content: [{ type: 'text', text: m.text }] })
    else if (m.role === 'assistant')
      prompt.push({
        role: 'assistant',
        content: [
          ...(m.text ? [{ type: 'text' as const, text: m.text }] : []),
          ...m.calls.map((c) => ({
            type: 'tool-call' as const,
            toolCallId: c.id,
            toolName: c.name,
            // A call whose arguments did not parse is replayed with none, as the SDK itself does.
            input: c.invalid ? {} : c.input,
          })),
        ],
      })
    else
      prompt.push({
        role: 'tool',
        content: m.results.map((r) => ({
          type: 'tool-result' as const,
          toolCallId: r.callId,
          toolName: r.name,
          output: r.isError
            ? {
                type: 'error-text' as const,
                value: typeof r.output === 'string' ? r.output : JSON.stringify(r.output),
              }
            : { type: 'json' as const, value: (r.output ?? null) as never },
        })),
      })
  }
  return prompt
}

/**
 * A provider's refusal in Switchyard's vocabulary. Its words are kept (they name the field the
 * provider refused) but never the request, which holds the key in its headers.
 */
function providerError(err: unknown): AppError {
  if (err instanceof AppError) return err
  const refused = refusalIn(err)
  if (refused) return new AppError('forbidden', refused.message)
  if (APICallError.isInstance(err)) {
    const status = err.statusCode
    const words = providerMessage(err.responseBody) ?? err.message
    const retryAfter = Number(err.responseHeaders?.['retry-after'])
    if (status === 429)
      return new AppError('rate_limited', `the model provider is rate limiting: ${words}`, {
        upstreamStatus: status,
        ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
      })
    if (status === 401 || status === 403)
      return new AppError('reconnect_required', `the model provider refused the key: ${words}`, {
        upstreamStatus: status,
      })
    if (status !== undefined && status >= 400 && status < 500)
      return new AppError('platform_refused', `the model provider refused the request: ${words}`, {
        upstreamStatus: status,
      })
    return new AppError('upstream_error', `the model provider failed: ${words}`, { upstreamStatus: status })
  }
  const message = err instanceof Error ? err.message : String(err)
  return new AppError('upstream_error', `the model call failed: ${message.slice(0, 300)}`)
}

/** An address outside the allowed networks, however deep the SDK and fetch wrapped it. */
function refusalIn(err: unknown): AddressRefused | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof AddressRefused) return e
  return undefined
}

function providerMessage(body: string | undefined): string | undefined {
  if (!body) return undefined
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } }
    return parsed.error?.message?.slice(0, 500)
  } catch {
    return undefined
  }
}
