import type { Conversation, ToolCall } from './conversation.ts'
import { callFor, remainingTools, type PlannedAnswer } from './default-model.ts'
import type { Fault, FaultRules, FaultSpec } from '../kit/faults.ts'

/**
 * The model sandboxes' own faults (docs/sandbox.md, "Model faults"), beside the kit's (status,
 * rate_limit, latency_ms, drop), in `POST /_control/faults` and in a scripted turn's `fault`:
 *
 * - `cut_after_events: n`: a streamed answer stops after n server-sent events (the connection is
 *   cut); an answer that is not streamed stops halfway through its JSON.
 * - `reply`: the answer the model would give, changed:
 *   - `malformed_arguments`: the first call's arguments are JSON cut short;
 *   - `empty_input`: the first call's arguments are `{}`;
 *   - `unknown_tool`: the first call names a tool that was not offered (`UNKNOWN_TOOL`);
 *   - `parallel_calls`: every tool still to call is called at once (at least two calls);
 *   - `length_in_tool_call`: the answer stops for length in the middle of its last call's arguments.
 *   An answer without a call first gets the call the default model would make.
 */

export const REPLY_FAULTS = [
  'malformed_arguments',
  'empty_input',
  'unknown_tool',
  'parallel_calls',
  'length_in_tool_call',
] as const
export type ReplyFault = (typeof REPLY_FAULTS)[number]

export const UNKNOWN_TOOL = 'sandbox_unknown_tool'

export interface ModelFault {
  cutAfterEvents?: number
  reply?: ReplyFault
}

export const modelFaultRules: FaultRules = {
  platformFields: (body) => {
    const fields: Record<string, unknown> = {}
    if (body.cut_after_events !== undefined) {
      const n = body.cut_after_events
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
        return { ok: false, problem: 'cut_after_events must be a non-negative integer' }
      fields.cut_after_events = n
    }
    if (body.reply !== undefined) {
      if (!(REPLY_FAULTS as readonly unknown[]).includes(body.reply))
        return { ok: false, problem: `reply must be one of ${REPLY_FAULTS.join(', ')}` }
      fields.reply = body.reply
    }
    return { ok: true, fields }
  },
}

/** The model sandbox's part of an injected fault. */
export function modelFault(fault: FaultSpec | Fault | undefined): ModelFault {
  const platform = fault?.platform ?? {}
  return {
    cutAfterEvents: typeof platform.cut_after_events === 'number' ? platform.cut_after_events : undefined,
    reply: platform.reply as ReplyFault | undefined,
  }
}

/** Half of a JSON text, so it no longer parses (`{"a":` for `{"a":1}`). */
export function cutShort(json: string): string {
  return json.slice(0, Math.max(1, Math.floor(json.length / 2)))
}

/** What a reply fault does to the answer the model would give; the answer's finish is left to the caller. */
export function applyReplyFault(
  kind: ReplyFault,
  answer: PlannedAnswer,
  conversation: Conversation,
): PlannedAnswer & { cutForLength?: boolean } {
  const calls: Array<Omit<ToolCall, 'id'>> = [...answer.calls]
  const firstTool = remainingTools(conversation)[0] ?? conversation.tools[0]
  if (calls.length === 0 && firstTool) calls.push(callFor(firstTool, conversation))
  const first = calls[0]
  if (!first) return answer
  switch (kind) {
    case 'malformed_arguments':
      calls[0] = { ...first, arguments: cutShort(first.arguments) }
      break
    case 'empty_input':
      calls[0] = { ...first, arguments: '{}' }
      break
    case 'unknown_tool':
      calls[0] = { ...first, name: UNKNOWN_TOOL }
      break
    case 'parallel_calls': {
      const more = remainingTools(conversation)
        .filter((tool) => !calls.some((c) => c.name === tool.name))
        .map((tool) => callFor(tool, conversation))
      calls.push(...more)
      if (calls.length < 2) calls.push({ ...first })
      break
    }
    case 'length_in_tool_call': {
      const last = calls[calls.length - 1] as Omit<ToolCall, 'id'>
      calls[calls.length - 1] = { ...last, arguments: cutShort(last.arguments) }
      return { text: answer.text, calls, cutForLength: true }
    }
  }
  return { text: answer.text, calls }
}
