import { buildArguments } from './arguments.ts'
import type { Conversation, ToolCall, ToolDefinition, Turn } from './conversation.ts'
import { conversationFacts } from './facts.ts'

/**
 * The sandbox's default "model" (docs/sandbox.md, "The default model"): plain rules a newcomer
 * can follow, deterministic, and honest that nothing is understood.
 *
 * 1. The tools it will call are the offered tools whose names the instructions mention, in the
 *    order they are first mentioned. Each is called once, one per answer, with arguments made by
 *    `buildArguments` from the facts of the instructions, the user's messages and tool results.
 * 2. When each of them has been called (or `tool_choice` is none), it answers with a text that
 *    lists the tool results it got; with an output schema, a JSON document of that schema.
 * `tool_choice` required (Anthropic's `any`) with nothing left to call calls the first tool
 * offered; a named tool choice calls that tool.
 */

/** What the default model says instead of understanding; its answers start with it. */
export const DEFAULT_MODEL_NOTE = 'Sandbox model (scripted rules, no understanding)'

/** How many characters of each tool result the final text quotes. */
export const QUOTE_CHARS = 200

export interface PlannedAnswer {
  text: string
  calls: Array<Omit<ToolCall, 'id'>>
}

const mentions = (text: string, name: string): number => {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const match = new RegExp(`(^|[^A-Za-z0-9_])${escaped}($|[^A-Za-z0-9_])`).exec(text)
  return match ? match.index : -1
}

/** The offered tools the instructions name, in the order of their first mention. */
export function namedTools(conversation: Conversation): ToolDefinition[] {
  return conversation.tools
    .map((tool) => ({ tool, at: mentions(conversation.system, tool.name) }))
    .filter(({ at }) => at >= 0)
    .sort((a, b) => a.at - b.at)
    .map(({ tool }) => tool)
}

function calledNames(turns: Turn[]): Set<string> {
  return new Set(turns.flatMap((turn) => (turn.role === 'assistant' ? turn.calls.map((c) => c.name) : [])))
}

function lastUserText(turns: Turn[]): string {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i] as Turn
    if (turn.role === 'user' && turn.text.trim()) return turn.text.trim()
  }
  return ''
}

/** The placeholder text a required string argument without a fact gets: the user's last words. */
export function fallbackText(conversation: Conversation): string {
  return lastUserText(conversation.turns).slice(0, QUOTE_CHARS) || 'sandbox'
}

export function callFor(tool: ToolDefinition, conversation: Conversation): Omit<ToolCall, 'id'> {
  const args = buildArguments(tool.parameters, conversationFacts(conversation), fallbackText(conversation))
  return { name: tool.name, arguments: JSON.stringify(args) }
}

/** The tools the default model would call next, in order (it calls the first). */
export function remainingTools(conversation: Conversation): ToolDefinition[] {
  const called = calledNames(conversation.turns)
  return namedTools(conversation).filter((tool) => !called.has(tool.name))
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > QUOTE_CHARS ? `${flat.slice(0, QUOTE_CHARS)}…` : flat
}

/** The final text: which tools were called and what each answered, quoted. */
export function summary(conversation: Conversation): string {
  const calls = new Map<string, string>()
  for (const turn of conversation.turns)
    if (turn.role === 'assistant') for (const call of turn.calls) calls.set(call.id, call.name)
  const lines = conversation.turns.flatMap((turn) =>
    turn.role === 'tool'
      ? turn.results.map(
          (r) => `- ${calls.get(r.callId) ?? r.callId}${r.isError ? ' (error)' : ''}: ${quote(r.content)}`,
        )
      : [],
  )
  if (lines.length === 0) {
    const said = lastUserText(conversation.turns)
    return `${DEFAULT_MODEL_NOTE}: no tool was called.${said ? ` Last message: "${quote(said)}"` : ''}`
  }
  return [`${DEFAULT_MODEL_NOTE}: ${lines.length} tool result(s).`, ...lines].join('\n')
}

/** The default model's answer to a conversation. */
export function defaultAnswer(conversation: Conversation): PlannedAnswer {
  const choice = conversation.toolChoice
  if (choice !== 'none' && conversation.tools.length > 0) {
    if (typeof choice === 'object') {
      const tool = conversation.tools.find((t) => t.name === choice.name)
      if (tool) return { text: '', calls: [callFor(tool, conversation)] }
    }
    const next =
      remainingTools(conversation)[0] ?? (choice === 'required' ? conversation.tools[0] : undefined)
    if (next) return { text: '', calls: [callFor(next, conversation)] }
  }
  if (conversation.outputSchema) {
    const text = summary(conversation)
    const document = buildArguments(conversation.outputSchema, conversationFacts(conversation), text)
    return { text: JSON.stringify(document), calls: [] }
  }
  return { text: summary(conversation), calls: [] }
}
