import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js'
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js'
import {
  isInitializeRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js'
import type { IncomingHttpHeaders } from 'node:http'

/** A POST the endpoint does not take: the HTTP status and JSON-RPC error the SDK's transport answers it with. */
export interface RefusedPost {
  status: number
  code: number
  message: string
}

export interface AcceptedPost {
  messages: JSONRPCMessage[]
  /** The requests among them, each of which gets an answer; none means the POST is answered 202. */
  requests: JSONRPCRequest[]
}

/**
 * What the SDK's stateless Streamable HTTP transport checks on a POST before any message reaches the
 * server, in its order and with its answers (the SDK's webStandardStreamableHttp.js): the endpoint
 * hands messages to a transport kept with its server (kept-transport.ts), so these checks are made here.
 */
export function checkPost(headers: IncomingHttpHeaders, body: unknown): RefusedPost | AcceptedPost {
  const accept = headers.accept
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream'))
    return refused(
      406,
      -32000,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
    )
  if (!isJsonContentType(headers['content-type']))
    return refused(415, -32000, 'Unsupported Media Type: Content-Type must be application/json')
  const batch = Array.isArray(body)
  if (batch && body.length > MAX_BATCH_SIZE)
    return refused(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`)
  let messages: JSONRPCMessage[]
  try {
    messages = (batch ? body : [body]).map((message) => JSONRPCMessageSchema.parse(message))
  } catch {
    return refused(400, -32700, 'Parse error: Invalid JSON-RPC message')
  }
  // The union's parse tells requests (a method and an id) from notifications and responses.
  const requests = messages.filter((m): m is JSONRPCRequest => 'method' in m && 'id' in m)
  const initializing = messages.some(
    (m) => 'method' in m && m.method === 'initialize' && isInitializeRequest(m),
  )
  if (initializing && messages.length > 1)
    return refused(400, -32600, 'Invalid Request: Only one initialization request is allowed')
  const version = headers['mcp-protocol-version']
  if (!initializing && version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)))
    return refused(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    )
  // Each answer is matched to its request by id, so a batch may not use one twice.
  if (new Set(requests.map((m) => m.id)).size < requests.length)
    return refused(400, -32600, 'Invalid Request: two requests of the batch share an id')
  return { messages, requests }
}

export function isRefused(post: RefusedPost | AcceptedPost): post is RefusedPost {
  return 'status' in post
}

/** The body the SDK's transport answers a refused POST with: a JSON-RPC error without an id. */
export function refusalBody(refusal: RefusedPost) {
  return { jsonrpc: '2.0', error: { code: refusal.code, message: refusal.message }, id: null }
}

function refused(status: number, code: number, message: string): RefusedPost {
  return { status, code, message }
}
