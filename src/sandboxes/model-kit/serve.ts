import { setTimeout as sleep } from 'node:timers/promises'
import type { Fault } from '../kit/faults.ts'
import { jsonResponse, type SandboxResponse } from '../kit/http.ts'
import type { Conversation, ModelReply } from './conversation.ts'
import { callModel, type TransportFault } from './engine.ts'
import type { ModelSandbox } from './sandbox.ts'
import type { Scenario } from './scenarios.ts'
import { cutJson, dropped, eventStream } from './sse.ts'

/** How one provider writes a model call that its request parser accepted. */
export interface CallWire {
  /** `chat.completions`, `responses` or `messages`, for the calls log. */
  api: string
  /** The request body as parsed, for the calls log. */
  request: unknown
  stream: boolean
  conversation: Conversation
  scenario: Scenario | undefined
  injected?: Fault
  newCallId(): string
  /** Headers every answer carries (the request id). */
  headers: Record<string, string>
  /** The answer's JSON body. */
  json(reply: ModelReply): unknown
  /** The answer's server-sent events, in order. */
  events(reply: ModelReply): string[]
  /** The provider's error answer for a scripted turn's status or rate-limit fault. */
  errorFor(fault: TransportFault): SandboxResponse
}

/** Answers a model call: the model's reply, with its faults applied, logged with its exact usage. */
export async function answerCall(sandbox: ModelSandbox, wire: CallWire): Promise<SandboxResponse> {
  const call = callModel(
    {
      conversation: wire.conversation,
      scenario: wire.scenario,
      injected: wire.injected,
      newCallId: wire.newCallId,
    },
    sandbox.store.scenarios,
  )
  const { reply, transport } = call
  const log = (status: number, error: string | null, answered: boolean) =>
    sandbox.logCall({
      api: wire.api,
      model: wire.conversation.model,
      stream: wire.stream,
      scenario: call.scenario,
      scripted: call.scripted,
      status,
      error,
      fault: call.fault,
      finish: answered ? reply.finish : null,
      usage: answered
        ? { input_tokens: reply.usage.inputTokens, output_tokens: reply.usage.outputTokens }
        : null,
      text: answered ? reply.text : null,
      tool_calls: answered ? reply.calls.map((c) => ({ ...c })) : [],
      request: wire.request,
    })

  if (transport.latencyMs) await sleep(transport.latencyMs)
  if (transport.drop) {
    log(0, 'connection dropped', false)
    return dropped()
  }
  if (transport.status !== undefined || transport.rateLimit) {
    const error = wire.errorFor(transport)
    log(error.status, 'injected fault', false)
    return { ...error, headers: { ...error.headers, ...wire.headers } }
  }
  log(200, null, true)
  const cutAfter = call.model.cutAfterEvents
  if (wire.stream) return eventStream(200, wire.headers, wire.events(reply), cutAfter)
  const answer = jsonResponse(200, wire.json(reply), wire.headers)
  return cutAfter === undefined ? answer : cutJson(answer)
}
