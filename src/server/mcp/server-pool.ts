import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'

/** Idle servers kept for the next requests: more than the requests one instance answers at once. */
const MAX_IDLE = 64

/**
 * MCP servers kept between requests. Building one (its handlers, capabilities and schemas) cost more
 * than the rest of a `tools/call` (bench/mcp.ts), and none of it depends on the caller, who comes
 * with each request. The transport cannot be kept: the SDK's stateless transport answers one request
 * only. A server is connected to one transport at a time, so each request borrows an idle one.
 */
export class McpServerPool {
  private readonly idle: Server[] = []

  constructor(private readonly build: () => Server) {}

  /** A server connected to a fresh transport, and how to give it back once the request is answered. */
  async borrow(): Promise<{
    server: Server
    transport: WebStandardStreamableHTTPServerTransport
    giveBack(): void
  }> {
    const server = this.idle.pop() ?? this.build()
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    let given = false
    const giveBack = () => {
      if (given) return
      given = true
      // Closing aborts what the request left running (a client that went away) and frees the
      // server for its next transport; one that fails to close is dropped, not reused.
      server.close().then(
        () => {
          if (this.idle.length < MAX_IDLE) this.idle.push(server)
        },
        () => {},
      )
    }
    return { server, transport, giveBack }
  }
}
