import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { KeptTransport } from './kept-transport.ts'
import { requestDispatchOf } from './request-dispatch.ts'

/** Idle servers kept for the next requests: more than the requests one instance answers at once. */
const MAX_IDLE = 64

/** A server and the transport it stays connected to. */
export interface PooledServer {
  server: Server
  transport: KeptTransport
}

/**
 * MCP servers kept between POSTs, each connected once to its own transport. Building a server (its
 * handlers, capabilities and schemas) and connecting it cost more than the rest of a `tools/call`
 * (bench/mcp.ts), and none of it depends on the caller, who comes with each request. A server
 * answers one POST at a time, so the JSON-RPC ids of different callers never meet in it: each POST
 * borrows an idle one.
 */
export class McpServerPool {
  private readonly idle: PooledServer[] = []

  constructor(private readonly build: () => Server) {}

  /**
   * A server for one POST, and what to do with it after: give it back once the POST is answered,
   * or drop it when the client left first (closing it aborts what the POST left running).
   */
  async borrow(): Promise<PooledServer & { giveBack(): void; drop(): void }> {
    const pooled = this.idle.pop() ?? (await this.connected())
    let done = false
    return {
      ...pooled,
      giveBack: () => {
        if (done) return
        done = true
        if (this.idle.length < MAX_IDLE) this.idle.push(pooled)
      },
      drop: () => {
        if (done) return
        done = true
        void pooled.server.close().catch(() => {})
      },
    }
  }

  private async connected(): Promise<PooledServer> {
    const server = this.build()
    const transport = new KeptTransport()
    await server.connect(transport)
    transport.dispatchRequest = requestDispatchOf(server)
    return { server, transport }
  }
}
