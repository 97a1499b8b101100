import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js'
import { exitOnSignal } from './exit-on-signal.ts'
import { serviceTarget } from './remote.ts'

/** How often the list is compared anyway, in case the service's change stream was down when it changed. */
const POLL_MS = 60_000

/**
 * `switchyard mcp`: the service's /mcp tools over stdio, for desktop clients that start a local
 * process. It is a proxy: every request goes to the running service with the CLI's key, so tools,
 * accounts, errors and tenancy are the service's own. stdout carries protocol messages only;
 * everything else goes to stderr.
 */
export async function serveMcpOverStdio(): Promise<undefined> {
  for (const method of ['log', 'info', 'debug', 'warn'] as const) console[method] = console.error // nothing else may reach stdout
  const target = serviceTarget()
  const server = new Server(
    { name: 'switchyard', title: 'Switchyard', version: '0.1.0' },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: `Switchyard at ${target.base}: its tool steps, acting as the connected accounts of the CLI's API key. Call search_tools to find a step.`,
    },
  )
  const upstream = new Upstream(target, () => void server.sendToolListChanged().catch(() => {}))
  server.setRequestHandler(ListToolsRequestSchema, (request) =>
    upstream.call<ListToolsResult>('tools/list', request.params, ListToolsResultSchema),
  )
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    upstream.call<CallToolResult>('tools/call', request.params, CallToolResultSchema),
  )

  const transport = new StdioServerTransport()
  await server.connect(transport)
  const poll = setInterval(() => void upstream.checkForChanges(), POLL_MS)
  poll.unref()
  const stop = exitOnSignal(async () => {
    clearInterval(poll)
    await upstream.close()
    await server.close().catch(() => {})
  })
  // The client closing our stdin is how a stdio session ends.
  process.stdin.once('end', stop)
  void upstream.connect().catch((err) => process.stderr.write(`switchyard mcp: ${(err as Error).message}\n`))
  process.stderr.write(`switchyard mcp: serving ${target.base}/mcp over stdio\n`)
  return undefined
}

/** The MCP client of the service, connected on first use and again after it is lost. */
class Upstream {
  private client: Promise<Client> | undefined
  private fingerprint: string | undefined

  constructor(
    private readonly target: { base: string; key: string },
    private readonly onListChanged: () => void,
  ) {}

  connect(): Promise<Client> {
    this.client ??= this.open().catch((err) => {
      this.client = undefined
      throw err
    })
    return this.client
  }

  async call<T>(
    method: string,
    params: unknown,
    schema: typeof ListToolsResultSchema | typeof CallToolResultSchema,
  ): Promise<T> {
    const client = await this.connect()
    try {
      return (await client.request({ method, params: params as Record<string, unknown> }, schema)) as T
    } catch (err) {
      if (err instanceof McpError) throw err
      this.client = undefined
      throw this.explain(err)
    }
  }

  /** Lists every page and tells the client if anything differs from the last look. */
  async checkForChanges(): Promise<void> {
    try {
      const tools = []
      let cursor: string | undefined
      do {
        const page = await this.call<ListToolsResult>(
          'tools/list',
          cursor ? { cursor } : {},
          ListToolsResultSchema,
        )
        tools.push(...page.tools)
        cursor = page.nextCursor
      } while (cursor)
      const now = JSON.stringify(tools)
      if (this.fingerprint !== undefined && now !== this.fingerprint) this.onListChanged()
      this.fingerprint = now
    } catch {
      /* the next look, or the next request, says what is wrong */
    }
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => undefined)
    await client?.close().catch(() => {})
  }

  private async open(): Promise<Client> {
    const client = new Client({ name: 'switchyard-cli', version: '0.1.0' })
    // The service announces list changes on its GET stream; pass them on.
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.onListChanged())
    client.onclose = () => {
      this.client = undefined
    }
    const transport = new StreamableHTTPClientTransport(new URL(`${this.target.base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${this.target.key}` } },
      reconnectionOptions: {
        initialReconnectionDelay: 1_000,
        maxReconnectionDelay: 30_000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: Number.MAX_SAFE_INTEGER,
      },
    })
    try {
      await client.connect(transport)
    } catch (err) {
      await client.close().catch(() => {})
      throw this.explain(err)
    }
    void this.checkForChanges()
    return client
  }

  private explain(err: unknown): McpError {
    if (err instanceof StreamableHTTPError && err.code === 401) {
      return new McpError(
        ErrorCode.InternalError,
        `Switchyard at ${this.target.base} refused the API key (SWITCHYARD_API_KEY or the admin key file)`,
      )
    }
    if (err instanceof StreamableHTTPError)
      return new McpError(
        ErrorCode.InternalError,
        `Switchyard at ${this.target.base} answered ${err.message}`,
      )
    return new McpError(
      ErrorCode.InternalError,
      `could not reach Switchyard at ${this.target.base}; is it running (npm start)?`,
    )
  }
}
