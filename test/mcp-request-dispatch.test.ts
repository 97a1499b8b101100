import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { KeptTransport } from '../src/server/mcp/kept-transport.ts'
import { checkPost, isRefused } from '../src/server/mcp/post-checks.ts'
import { requestDispatchOf } from '../src/server/mcp/request-dispatch.ts'
import { successResult } from '../src/server/mcp/results.ts'
import { McpServerPool } from '../src/server/mcp/server-pool.ts'

// Requests skip the SDK's onmessage, which would tell them from responses and notifications by three
// zod checks, and go straight to the server's own dispatch (request-dispatch.ts). These tests hold
// that this changes no answer: each body gets the same answers as through onmessage.

function toolServer(): Server {
  const server = new Server({ name: 't', version: '0' }, { capabilities: { tools: {} } })
  // Registered as server.ts registers tools/call.
  Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, async (request) => {
    if (request.params.name === 'fails') throw new McpError(ErrorCode.InvalidParams, 'unknown tool fails')
    return successResult({ echoed: request.params.arguments ?? {} })
  })
  return server
}

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' }

async function answersOf(transport: KeptTransport, body: unknown): Promise<JSONRPCMessage[]> {
  const post = checkPost(HEADERS, body)
  if (isRefused(post)) throw new Error(post.message)
  return transport.serve(post.messages, post.requests, {})
}

const call = (id: number | string, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params })

const BODIES: Array<[string, unknown]> = [
  ['a tool call', call(1, { name: 'get', arguments: { a: [1, 'é', { b: null }] } })],
  ['a tool call with a string id', call('x-1', { name: 'get' })],
  ['a tool call whose handler throws', call(2, { name: 'fails', arguments: {} })],
  ['a tool call without a name', call(3, { arguments: {} })],
  ['a method the server does not have', { jsonrpc: '2.0', id: 4, method: 'resources/list' }],
  ['a ping', { jsonrpc: '2.0', id: 5, method: 'ping' }],
  [
    'a batch of a notification, a response and two requests',
    [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 99, result: {} },
      call(6, { name: 'get', arguments: { n: 1 } }),
      { jsonrpc: '2.0', id: 7, method: 'ping' },
    ],
  ],
]

describe('MCP requests go to the server without the SDK re-checking what they are', () => {
  it('the SDK still has the dispatch they go to', () => {
    expect(requestDispatchOf(toolServer())).toBeTypeOf('function')
  })

  it('a server from the pool takes requests past onmessage, and notifications and responses through it', async () => {
    const lease = await new McpServerPool(toolServer).borrow()
    const seen: JSONRPCMessage[] = []
    const onmessage = lease.transport.onmessage!
    lease.transport.onmessage = (message, extra) => {
      seen.push(message)
      onmessage(message, extra)
    }
    await answersOf(lease.transport, BODIES.at(-1)![1])
    expect(seen.map((m) => ('method' in m ? m.method : 'response'))).toEqual([
      'notifications/initialized',
      'response',
    ])
    await lease.server.close()
  })

  it.each(BODIES)('%s gets the same answers as through onmessage', async (_name, body) => {
    const lease = await new McpServerPool(toolServer).borrow()
    const viaOnmessage = new KeptTransport()
    const server = toolServer()
    await server.connect(viaOnmessage)
    const direct = await answersOf(lease.transport, body)
    expect(direct).toEqual(await answersOf(viaOnmessage, body))
    expect(direct.length).toBeGreaterThan(0)
    await Promise.all([lease.server.close(), server.close()])
  })
})
