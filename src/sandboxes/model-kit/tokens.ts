import type { Conversation, ModelReply, Turn } from './conversation.ts'

/**
 * The model sandboxes' token counts: exact and deterministic, so budget tests can assert exact
 * numbers (docs/sandbox.md, "Token counts"). Real tokenizers differ per model; this rule is the
 * sandbox's own and says so. A text is one token per 4 bytes of UTF-8, rounded up. Ids are not
 * counted, so the same conversation costs the same on every provider and in every run.
 */
export function textTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4)
}

/** Each message (turn, or tool result) costs this much besides its text. */
export const PER_MESSAGE_TOKENS = 3

function turnTokens(turn: Turn): number {
  if (turn.role === 'user') return PER_MESSAGE_TOKENS + textTokens(turn.text)
  if (turn.role === 'assistant')
    return (
      PER_MESSAGE_TOKENS +
      textTokens(turn.text) +
      turn.calls.reduce((sum, call) => sum + textTokens(call.name) + textTokens(call.arguments), 0)
    )
  return turn.results.reduce((sum, result) => sum + PER_MESSAGE_TOKENS + textTokens(result.content), 0)
}

/**
 * Input tokens: the instructions, every turn, and every tool offered (its name, description and
 * `JSON.stringify` of its parameters).
 */
export function inputTokens(conversation: Conversation): number {
  const system = conversation.system ? PER_MESSAGE_TOKENS + textTokens(conversation.system) : 0
  const turns = conversation.turns.reduce((sum, turn) => sum + turnTokens(turn), 0)
  const tools = conversation.tools.reduce(
    (sum, tool) =>
      sum +
      textTokens(tool.name) +
      textTokens(tool.description) +
      textTokens(JSON.stringify(tool.parameters)),
    0,
  )
  return system + turns + tools
}

/** Output tokens: the answer's text, and each call's name and arguments text. */
export function outputTokens(reply: {
  text: string
  calls: Array<Pick<ModelReply['calls'][number], 'name' | 'arguments'>>
}): number {
  return (
    textTokens(reply.text) +
    reply.calls.reduce((sum, call) => sum + textTokens(call.name) + textTokens(call.arguments), 0)
  )
}
