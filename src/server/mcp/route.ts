import { prototypeKeyIn } from '../prototype-keys.ts'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Services } from '../../services.ts'
import { authenticateMcp, bearerResolvers } from './auth.ts'
import { McpCatalog } from './catalog.ts'
import { answerJson } from './results.ts'
import { ListChanges } from './list-changes.ts'

export const MCP_PATH = '/mcp'

export interface McpRouteOptions {
  /** Tools per tools/list page (tests make it small to page through the catalogue). */
  pageSize?: number
}

/**
 * MCP's Streamable HTTP transport at /mcp, stateless (docs/mcp.md):
 * - No Mcp-Session-Id. Each POST borrows a server kept from earlier requests, connected once to a
 *   transport of its own (server-pool.ts, kept-transport.ts), after the checks the SDK's stateless
 *   transport makes (post-checks.ts); it answers with one JSON response. The caller comes with the
 *   request, so any instance behind a load balancer can take any request, with nothing to share and
 *   nothing to lose when an instance stops. Tool calls are single request/response steps, so
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
  // Open GET streams never end on their own: closing them lets the service stop (and, behind a load
  // balancer, sends their clients to another instance, where they reconnect).
  const streams = new Set<() => Promise<void>>()
  app.addHook('preClose', async () => {
    await Promise.all([...streams].map((end) => end()))
  })

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

    const sdk = mcpSdkOnFirstRequest(services, catalog, options)

    scope.post(MCP_PATH, async (request, reply) => {
      if (request.body === NOT_JSON)
        return reply.status(400).send({
          jsonrpc: '2.0',
          error: { code: -32700, message: 'Parse error: the body is not valid JSON' },
          id: null,
        })
      const caller = await authenticateMcp(request, reply, resolvers)
      const { pool, requestContext, checkPost, isRefused, refusalBody } = await sdk()
      const post = checkPost(request.headers, request.body)
      if (isRefused(post)) return reply.status(post.status).send(refusalBody(post))
      const lease = await pool.borrow()
      let answered = false
      whenGone(request, reply, () => {
        if (!answered) lease.drop()
      })
      let answers
      try {
        answers = await lease.transport.serve(post.messages, post.requests, {
          authInfo: requestContext({
            caller,
            log: request.log,
            refusedArguments: refusedToolArguments(request.body),
          }),
          requestInfo: { headers: request.headers },
        })
      } catch {
        // The client left and its server was dropped: there is no one to answer.
        return reply
      }
      answered = true
      lease.giveBack()
      // As the SDK's transport answers: 202 when nothing asked for an answer, one answer alone, several as an array.
      if (answers.length === 0) return reply.status(202).send()
      return reply
        .header('content-type', 'application/json')
        .send(answers.length === 1 ? answerJson(answers[0]) : `[${answers.map(answerJson).join(',')}]`)
    })

    scope.get(MCP_PATH, async (request, reply) => {
      const caller = await authenticateMcp(request, reply, resolvers)
      const { build, requestContext, WebStandardStreamableHTTPServerTransport } = await sdk()
      // A stream's server is its own for as long as the stream stays open: it sends the list changes.
      const server = build()
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      })
      await server.connect(transport)
      const close = () => void server.close().catch(() => {})
      // Closing the server ends the stream; a client that left while this was being set up is let go at once.
      let gone = false
      let unwatch = () => {}
      const end = () => {
        gone = true
        streams.delete(end)
        unwatch()
        close()
        return finished(reply)
      }
      streams.add(end)
      whenGone(request, reply, () => void end())
      const response = await transport.handleRequest(webRequest(request), {
        authInfo: requestContext({ caller, log: request.log }),
      })
      if (!response.ok) {
        void end()
        return reply.send(response)
      }
      // A stream opened with an API key ends when that key is deleted: it must not outlive the credential.
      const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1]
      const keyId = caller.agentId.startsWith('key:') ? caller.agentId.slice('key:'.length) : undefined
      const key =
        keyId && bearer
          ? {
              id: keyId,
              stillValid: async () => (await services.users.authenticateKey(bearer)) !== undefined,
              revoked: () => void end(),
            }
          : undefined
      const stop = await listChanges.watch(
        caller.user.id,
        () => void server.sendToolListChanged().catch(() => {}),
        key,
      )
      if (gone) stop()
      else unwatch = stop
      return reply.send(
        new Response(openedAtOnce(response.body!), { status: response.status, headers: response.headers }),
      )
    })

    scope.delete(MCP_PATH, async (request, reply) => {
      await authenticateMcp(request, reply, resolvers)
      return reply
        .status(405)
        .header('allow', 'GET, POST')
        .send({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Method not allowed: this server keeps no sessions' },
          id: null,
        })
    })
  })
}

const NOT_JSON = Symbol('not JSON')

/**
 * The MCP SDK and the servers built on it, loaded by the first request to /mcp: they hold several
 * MiB that an instance no MCP client talks to never uses (docs/benchmarks.md, "Memory").
 */
function mcpSdkOnFirstRequest(services: Services, catalog: McpCatalog, options: McpRouteOptions) {
  const load = async () => {
    const [
      { createMcpServer, requestContext },
      { McpServerPool },
      { checkPost, isRefused, refusalBody },
      { WebStandardStreamableHTTPServerTransport },
    ] = await Promise.all([
      import('./server.ts'),
      import('./server-pool.ts'),
      import('./post-checks.ts'),
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    ])
    const build = () => createMcpServer({ services, catalog, pageSize: options.pageSize })
    const pool = new McpServerPool(build)
    return {
      build,
      pool,
      requestContext,
      checkPost,
      isRefused,
      refusalBody,
      WebStandardStreamableHTTPServerTransport,
    }
  }
  let loaded: ReturnType<typeof load> | undefined
  return () => (loaded ??= load())
}

/**
 * The stream with an SSE comment in front: headers only leave with the first bytes, and the SDK's
 * first keep-alive comes after 15 s, so without it a client would wait that long to see the stream open.
 */
function openedAtOnce(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  return new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(new TextEncoder().encode(': open\n\n')),
    pull: async (controller) => {
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

/**
 * Resolves once the response is written out (so the server's close finds the connection idle and
 * closes it), or after a moment if it never gets that far.
 */
function finished(reply: FastifyReply): Promise<void> {
  const raw = reply.raw
  if (raw.writableFinished || raw.destroyed) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1_000)
    timer.unref()
    const done = () => {
      clearTimeout(timer)
      resolve()
    }
    raw.once('finish', done)
    raw.once('close', done)
  })
}

/** Runs `then` once the connection is done with, including when it already was. */
function whenGone(request: FastifyRequest, reply: FastifyReply, then: () => void) {
  if (request.raw.socket?.destroyed || reply.raw.destroyed) then()
  else reply.raw.once('close', then)
}

/** The SDK's transport speaks web-standard Requests; the body is handed over already parsed. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one)
  }
  return new Request(new URL(request.url, 'http://switchyard.invalid'), { method: request.method, headers })
}

/**
 * The tool calls in a JSON-RPC body (one message or a batch) whose arguments hold a `__proto__` or
 * `constructor.prototype` key, by id, seen on the body as parsed: the SDK's validation copies the
 * arguments and drops such a key, and the step would run without it as if nothing were wrong.
 */
function refusedToolArguments(body: unknown): Map<string | number, { field: string; key: string }> {
  const refused = new Map<string | number, { field: string; key: string }>()
  for (const message of Array.isArray(body) ? body : [body]) {
    const m = message as { method?: unknown; id?: unknown; params?: { arguments?: unknown } } | null
    if (m?.method !== 'tools/call' || (typeof m.id !== 'string' && typeof m.id !== 'number')) continue
    const hostile = prototypeKeyIn(m.params?.arguments)
    if (hostile) refused.set(m.id, hostile)
  }
  return refused
}
