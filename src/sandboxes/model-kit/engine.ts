import type { Conversation, ModelReply, ToolCall } from './conversation.ts'
import { defaultAnswer, type PlannedAnswer } from './default-model.ts'
import { applyReplyFault, modelFault, type ModelFault } from './model-faults.ts'
import type { Scenario, Scenarios } from './scenarios.ts'
import { inputTokens, outputTokens, textTokens } from './tokens.ts'
import type { Fault, FaultSpec } from '../kit/faults.ts'

/**
 * One model call (docs/sandbox.md, "Model sandbox"): the scripted turn or the default model's
 * answer, then the faults and the output-token limit applied, and the exact usage counted.
 */

/** The kit's part of a scripted turn's fault: what the answer is instead of, or before, the model's. */
export interface TransportFault {
  latencyMs?: number
  drop?: boolean
  status?: number
  /** A forced 429; `retryAfter` in seconds. */
  rateLimit?: { retryAfter: number | null }
  retryAfter?: number
}

export interface ModelCall {
  reply: ModelReply
  /** The scenario followed, when one was. */
  scenario: string | null
  /** Whether a scripted turn gave the answer (false: the default model did). */
  scripted: boolean
  transport: TransportFault
  model: ModelFault
  /** The fault's name for the logs, or null. */
  fault: string | null
}

export interface CallInput {
  conversation: Conversation
  scenario: Scenario | undefined
  /** The injected fault the kit left to the model sandbox (its `platform` part). */
  injected?: Fault
  newCallId(): string
}

function transportOf(spec: FaultSpec | undefined): TransportFault {
  if (!spec) return {}
  return {
    latencyMs: spec.latency_ms,
    drop: spec.drop,
    status: spec.status,
    rateLimit: spec.rate_limit ? { retryAfter: spec.rate_limit.retry_after } : undefined,
    retryAfter: spec.retry_after,
  }
}

function faultLabel(spec: FaultSpec | undefined): string | null {
  if (!spec) return null
  const parts = [
    spec.drop ? 'drop' : '',
    spec.rate_limit ? 'rate_limit' : '',
    spec.status ? `status_${spec.status}` : '',
    spec.latency_ms ? 'latency' : '',
    ...Object.entries(spec.platform ?? {}).map(([k, v]) => (k === 'reply' ? String(v) : k)),
  ]
  return parts.filter(Boolean).join('+') || null
}

/**
 * Cuts the answer to `max` output tokens (4 bytes each, tokens.ts): the text first, then each
 * call's arguments; what does not fit is dropped, and the answer stops for length.
 */
export function limitOutput(answer: PlannedAnswer, max: number): { answer: PlannedAnswer; cut: boolean } {
  if (outputTokens(answer) <= max) return { answer, cut: false }
  let left = max
  const take = (text: string): string => {
    const tokens = textTokens(text)
    if (tokens <= left) {
      left -= tokens
      return text
    }
    const kept = Buffer.from(text, 'utf8')
      .subarray(0, left * 4)
      .toString('utf8')
      .replace(/\uFFFD+$/, '')
    left = 0
    return kept
  }
  const text = take(answer.text)
  const calls: PlannedAnswer['calls'] = []
  for (const call of answer.calls) {
    if (left <= textTokens(call.name)) break
    left -= textTokens(call.name)
    calls.push({ name: call.name, arguments: take(call.arguments) })
  }
  return { answer: { text, calls }, cut: true }
}

export function callModel(input: CallInput, scenarios: Scenarios): ModelCall {
  const { conversation, scenario } = input
  const turn = scenario ? scenarios.take(scenario) : undefined
  const spec = turn?.fault ?? input.injected
  const model = modelFault(spec)
  let answer: PlannedAnswer = turn ? { text: turn.text, calls: turn.calls } : defaultAnswer(conversation)
  let length = turn?.finish === 'length'
  if (model.reply) {
    const changed = applyReplyFault(model.reply, answer, conversation)
    answer = { text: changed.text, calls: changed.calls }
    length ||= changed.cutForLength === true
  }
  if (conversation.maxOutputTokens !== undefined) {
    const limited = limitOutput(answer, conversation.maxOutputTokens)
    answer = limited.answer
    length ||= limited.cut
  }
  const scriptedIds = turn?.calls.map((c) => c.id) ?? []
  const calls: ToolCall[] = answer.calls.map((call, i) => ({
    id: scriptedIds[i] ?? input.newCallId(),
    name: call.name,
    arguments: call.arguments,
  }))
  const reply: ModelReply = {
    text: answer.text,
    calls,
    finish: length ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop',
    usage: {
      inputTokens: inputTokens(conversation),
      outputTokens: outputTokens({ text: answer.text, calls }),
    },
  }
  return {
    reply,
    scenario: scenario?.id ?? null,
    scripted: turn !== undefined,
    // A scripted turn's fault is the model sandbox's to apply whole; an injected one's transport
    // part was applied by the kit already.
    transport: turn?.fault ? transportOf(turn.fault) : {},
    model,
    fault: faultLabel(spec),
  }
}
