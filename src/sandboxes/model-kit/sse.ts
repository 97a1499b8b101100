import { setTimeout as sleep } from 'node:timers/promises'
import type { SandboxResponse } from '../kit/http.ts'

/** Server-sent events, as the providers write them: `event:` (when named) and one `data:` line. */
export function sseEvent(data: unknown, event?: string): string {
  const body = typeof data === 'string' ? data : JSON.stringify(data)
  return `${event ? `event: ${event}\n` : ''}data: ${body}\n\n`
}

/** How many characters each streamed fragment of text or arguments carries. */
export const FRAGMENT_CHARS = 16

export function fragments(text: string): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += FRAGMENT_CHARS) out.push(text.slice(i, i + FRAGMENT_CHARS))
  return out
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
}

/** Thrown inside a stream to cut the connection where it is (kit/fastify.ts). */
export class ConnectionCut extends Error {
  constructor() {
    super('connection cut by an injected fault')
  }
}

/**
 * Pieces written one by one; `cutAfter` cuts the connection after that many pieces. The pause
 * between pieces only lets each reach the client as its own read, as a real stream's would.
 */
async function* pieces(all: string[], cutAfter: number | undefined): AsyncIterable<string> {
  for (const [i, piece] of all.entries()) {
    if (cutAfter !== undefined && i >= cutAfter) throw new ConnectionCut()
    yield piece
    await sleep(0)
  }
  if (cutAfter !== undefined && cutAfter < all.length) throw new ConnectionCut()
}

export function eventStream(
  status: number,
  headers: Record<string, string>,
  events: string[],
  cutAfter?: number,
): SandboxResponse {
  return { status, headers: { ...SSE_HEADERS, ...headers }, stream: pieces(events, cutAfter) }
}

/** A JSON answer cut halfway through its body (a non-streamed answer under `cut_after_events`). */
export function cutJson(response: SandboxResponse): SandboxResponse {
  const payload = response.payload ?? ''
  return {
    status: response.status,
    headers: response.headers,
    stream: pieces([payload.slice(0, Math.floor(payload.length / 2)), payload], 1),
  }
}

/** A connection closed before any byte of the answer (a scripted turn's `drop`). */
export function dropped(): SandboxResponse {
  return { status: 200, headers: {}, stream: pieces([''], 0) }
}
