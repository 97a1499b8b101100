import type { Conversation } from './conversation.ts'

/**
 * The values the default model can put into tool arguments (docs/sandbox.md, "The default
 * model"): named values it finds in the instructions, the user's messages and the tool results,
 * by name. It reads them as written and understands nothing.
 *
 * - A text that is a JSON object gives each of its keys, at any depth (the shallowest first).
 * - Otherwise each line `name: value` or `name = value` gives `name` (the value read as JSON
 *   when it is JSON, else as the trimmed text).
 * - Later sources override earlier ones: instructions, then the conversation in order, so the
 *   latest tool result wins.
 */
export type Facts = Map<string, unknown>

const LINE = /^\s*(?:[-*]\s+)?([A-Za-z_][\w.-]*)\s*[:=]\s*(.+?)\s*$/

function readValue(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Every key of a JSON value at any depth, breadth first, so a shallower key wins a repeated name. */
function objectFacts(root: Record<string, unknown>): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = []
  const seen = new Set<string>()
  let level: unknown[] = [root]
  while (level.length > 0) {
    const next: unknown[] = []
    for (const node of level) {
      const entries = Array.isArray(node) ? node.map((v) => ['', v] as const) : Object.entries(node as object)
      for (const [key, value] of entries) {
        if (key && !seen.has(key)) {
          seen.add(key)
          found.push([key, value])
        }
        if (isObject(value) || Array.isArray(value)) next.push(value)
      }
    }
    level = next
  }
  return found
}

/** The named values one text gives. */
export function textFacts(text: string): Array<[string, unknown]> {
  const trimmed = text.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const parsed = readValue(trimmed)
    if (isObject(parsed)) return objectFacts(parsed)
    if (Array.isArray(parsed)) return objectFacts({ items: parsed })
  }
  const found: Array<[string, unknown]> = []
  for (const line of text.split('\n')) {
    const match = LINE.exec(line)
    if (match) found.push([match[1] as string, readValue(match[2] as string)])
  }
  return found
}

export function conversationFacts(conversation: Conversation): Facts {
  const facts: Facts = new Map()
  const add = (pairs: Array<[string, unknown]>) => {
    for (const [key, value] of pairs) facts.set(key, value)
  }
  add(textFacts(conversation.system))
  for (const turn of conversation.turns) {
    if (turn.role === 'user') add(textFacts(turn.text))
    if (turn.role === 'tool') for (const result of turn.results) add(textFacts(result.content))
  }
  return facts
}

/** How a property name finds a fact: exactly, or ignoring case, `_` and `-` (`ticketId` finds `ticket_id`). */
export function lookUp(facts: Facts, name: string): { found: boolean; value?: unknown } {
  if (facts.has(name)) return { found: true, value: facts.get(name) }
  const wanted = normalize(name)
  for (const [key, value] of facts) if (normalize(key) === wanted) return { found: true, value }
  return { found: false }
}

const normalize = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '')
