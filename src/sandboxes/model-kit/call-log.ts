import type { ModelReply } from './conversation.ts'

/** How many model calls the log keeps (oldest dropped first), as the kit's request log. */
export const MAX_LOGGED_CALLS = 1000

/**
 * One model call as `GET /_control/calls` shows it (docs/sandbox.md, "Calls log"): what was
 * asked (the request body as sent: never a key, since keys travel in headers), what was answered,
 * and the exact usage. Refused requests are logged too, with their status and error message.
 */
export interface LoggedCall {
  id: number
  at: string
  /** `chat.completions`, `responses` or `messages`. */
  api: string
  model: string | null
  stream: boolean
  scenario: string | null
  scripted: boolean
  status: number
  error: string | null
  fault: string | null
  finish: ModelReply['finish'] | null
  usage: { input_tokens: number; output_tokens: number } | null
  text: string | null
  tool_calls: Array<{ id: string; name: string; arguments: string }>
  request: unknown
}

export class CallLog {
  private entries: LoggedCall[] = []
  private nextId = 1

  add(entry: Omit<LoggedCall, 'id'>): void {
    this.entries.push({ id: this.nextId++, ...entry })
    if (this.entries.length > MAX_LOGGED_CALLS) this.entries.splice(0, this.entries.length - MAX_LOGGED_CALLS)
  }

  /** Oldest first; `limit` keeps the newest N of those `matching`. */
  list(limit?: number, matching: (entry: LoggedCall) => boolean = () => true): LoggedCall[] {
    const found = this.entries.filter(matching)
    return (limit !== undefined ? found.slice(Math.max(0, found.length - limit)) : found).map((e) =>
      structuredClone(e),
    )
  }

  clear(): void {
    this.entries = []
  }
}
