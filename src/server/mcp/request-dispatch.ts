import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { JSONRPCRequest, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js'

/** Hands one request to a connected server's dispatch, as its transport's `onmessage` would. */
export type RequestDispatch = (request: JSONRPCRequest, extra: MessageExtraInfo) => void

/** The part of the SDK's Protocol (shared/protocol.js) that runs a request once it is known to be one. */
interface ProtocolInternals {
  _onrequest?: (request: JSONRPCRequest, extra?: MessageExtraInfo) => void
}

/**
 * The server's own request dispatch (`Protocol._onrequest`), which runs the handler, its cancellation
 * and its answer; undefined if this SDK has none, and then messages take `onmessage`.
 *
 * Why: the `onmessage` that Protocol.connect puts on a transport tells a request from a response or a
 * notification by three zod checks (isJSONRPCResultResponse, isJSONRPCErrorResponse, isJSONRPCRequest),
 * the first two failing on every request and building their error reports, which cost more than
 * the rest of the SDK's share of a `tools/call` (bench/mcp.ts). A POST's messages have already been
 * parsed by the SDK's own JSONRPCMessageSchema (post-checks.ts), whose four kinds are strict objects:
 * one that parsed with a `method` and an `id` can only be a request, which is the verdict those three
 * checks reach. Nothing else changes: `_onrequest` is what `onmessage` calls next, with the same
 * arguments. test/mcp-request-dispatch.test.ts checks the SDK still has it, and the MCP suites drive
 * every path through the SDK's own client.
 */
export function requestDispatchOf(server: Server): RequestDispatch | undefined {
  const onrequest = (server as unknown as ProtocolInternals)._onrequest
  return typeof onrequest === 'function'
    ? (request, extra) => onrequest.call(server, request, extra)
    : undefined
}
