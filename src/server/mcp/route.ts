import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Services } from '../../services.ts'
import { authenticateMcp, bearerResolvers } from './auth.ts'
import { McpCatalog } from './catalog.ts'
import { ListChanges } from './list-changes.ts'
import { createMcpServer } from './server.ts'

export const MCP_PATH = '/mcp'

export interface McpRouteOptions {
  /** Tools per tools/list page (tests make it small to page through the catalogue). */
  pageSize?: number
}

/**
 * MCP's Streamable HTTP transport at /mcp, stateless (docs/mcp.md):
 * - No Mcp-Session-Id. Each POST gets a fresh server and transport that answer with one JSON
 *   response, so any instance behind a load balancer can take any request, with nothing to share
 *   and nothing to lose when an instance stops. Tool calls are single request/response steps, so
 *   streaming a POST's answer would buy nothing.
 * - GET opens the optional server-to-client stream. It carries only
 *   `notifications/tools/list_changed`, which any instance can send because integration changes
 *   reach every instance through the store's change feed. A dropped stream loses nothing the client
 *   cannot get back by listing again.
 * - DELETE (ending a session) answers 405: there are none.
 */
export async function registerMcp(app: FastifyInstance, services: Services, options: McpRouteOptions = {}) {
  const catalog = new McpCatalog(services.registry)
  const resolvers = bearerResolvers(services)
  const listChanges = new ListChanges(services)

  await app.register(async (scope) => {
    // The body reaches the SDK as parsed JSON; a body that is not JSON gets JSON-RPC's parse error.
    scope.removeContentTypeParser('application/json')
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string))
      } catch {
        done(null, NOT_JSON)
      }
    })

    const open = async (request: FastifyRequest, reply: FastifyReply) => {
      const caller = await authenticateMcp(request, reply, resolvers)
      const server = createMcpServer({ services, catalog, caller, log: request.log, pageSize: options.pageSize })
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      await server.connect(transport)
      const close = () => void server.close().catch(() => {})
      return { caller, server, transport, close }
    }

    scope.post(MCP_PATH, async (request, reply) => {
      if (request.body === NOT_JSON) return reply.status(400).send({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not valid JSON' }, id: null })
      const { transport, close } = await open(request, reply)
      reply.raw.once('close', close)
      return reply.send(await transport.handleRequest(webRequest(request), { parsedBody: request.body }))
    })

    scope.get(MCP_PATH, async (request, reply) => {
      const { caller, server, transport, close } = await open(request, reply)
      const response = await transport.handleRequest(webRequest(request))
      if (!response.ok) {
        close()
        return reply.send(response)
      }
      const stop = await listChanges.watch(caller.user.id, () => void server.sendToolListChanged().catch(() => {}))
      reply.raw.once('close', () => {
        stop()
        close()
      })
      return reply.send(response)
    })

    scope.delete(MCP_PATH, async (request, reply) => {
      await authenticateMcp(request, reply, resolvers)
      return reply.status(405).header('allow', 'GET, POST').send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server keeps no sessions' }, id: null })
    })
  })
}

const NOT_JSON = Symbol('not JSON')

/** The SDK's transport speaks web-standard Requests; the body is handed over already parsed. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one)
  }
  return new Request(new URL(request.url, 'http://switchyard.invalid'), { method: request.method, headers })
}
