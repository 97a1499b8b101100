import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js'
import type { RequestDispatch } from './request-dispatch.ts'

/**
 * A transport that stays connected to one server for the server's whole life, answering one POST's
 * messages at a time. The SDK's stateless transport answers a single request and must be built, and
 * its server connected to it, again for the next; building and connecting them and converting each
 * request to a web Request and back cost more than the rest of a `tools/call` (bench/mcp.ts). The
 * HTTP checks that transport makes are made before a POST gets here (post-checks.ts).
 */
export class KeptTransport implements Transport {
  onmessage?: Transport['onmessage']
  onclose?: () => void
  onerror?: (error: Error) => void
  /** Set once connected: requests go straight to the server's dispatch (request-dispatch.ts). */
  dispatchRequest?: RequestDispatch
  private readonly waiting = new Map<RequestId, Waiting>()

  async start(): Promise<void> {}

  /** Ends the requests still waiting (their client left): the server aborts their handlers as it closes. */
  async close(): Promise<void> {
    for (const { fail } of this.waiting.values()) fail(new Error('the transport closed before answering'))
    this.waiting.clear()
    this.onclose?.()
  }

  /**
   * Answers to a request of the POST being served are handed back to it. Anything else the server
   * sends (a notification, a request to the client) has no stream to go on: the SDK's transport,
   * answering with JSON as this endpoint does, drops it too.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!('result' in message) && !('error' in message)) return
    this.waiting.get(message.id as RequestId)?.answer(message)
  }

  /**
   * Hands one POST's messages to the server, with the caller in `extra`, and resolves with the
   * answers to its requests in their order (none when it held only notifications and responses).
   * `requests` are the very objects among `messages` that are requests (post-checks.ts).
   */
  async serve(
    messages: JSONRPCMessage[],
    requests: JSONRPCRequest[],
    extra: MessageExtraInfo,
  ): Promise<JSONRPCMessage[]> {
    const answers = requests.map(
      (request) =>
        new Promise<JSONRPCMessage>((answer, fail) => this.waiting.set(request.id, { answer, fail })),
    )
    try {
      const dispatch = this.dispatchRequest
      for (const message of messages) {
        if (dispatch && requests.includes(message as JSONRPCRequest))
          dispatch(message as JSONRPCRequest, extra)
        else this.onmessage?.(message, extra)
      }
      return await Promise.all(answers)
    } finally {
      for (const request of requests) this.waiting.delete(request.id)
    }
  }
}

interface Waiting {
  answer(message: JSONRPCMessage): void
  fail(error: Error): void
}
