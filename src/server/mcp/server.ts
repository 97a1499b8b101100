import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js'
import type { FastifyBaseLogger } from 'fastify'
import { AppError, invalidInput } from '../../core/errors.ts'
import type { Services } from '../../services.ts'
import { accountsOf, MAX_OFFERED_ACCOUNTS, platformAccounts, type Accounts } from './accounts.ts'
import type { McpCaller } from './auth.ts'
import { INTEGRATION_ARG, SEARCH_TOOL, type McpCatalog, type StepTool } from './catalog.ts'
import { errorResult, successResult } from './results.ts'
import { prototypeKeyIn } from '../prototype-keys.ts'
import { searchTool, runSearch } from './search.ts'
import { agentToolsFor, callAgentTool, isAgentTool } from './agent-tools.ts'

/** Enough for every step of today's platforms in one page; clients that page get the rest when it grows. */
export const DEFAULT_PAGE_SIZE = 100

export interface McpServerOptions {
  services: Services
  catalog: McpCatalog
  pageSize?: number
}

/** Who is calling and where to log, handed to the server with each request (see requestContext). */
export interface McpRequestContext {
  caller: McpCaller
  log: FastifyBaseLogger
  /**
   * Tool calls of this request whose arguments held a key REST refuses, by JSON-RPC id: the SDK's
   * validation drops such a key without a word before a handler sees the arguments (route.ts).
   */
  refusedArguments?: Map<string | number, { field: string; key: string }>
}

/**
 * The context as the transport carries it to the handlers: in `authInfo`, the SDK's one per-request
 * slot, so that one server can answer different callers' requests one after another.
 */
export function requestContext(context: McpRequestContext): AuthInfo {
  return { token: '', clientId: context.caller.agentId, scopes: [], extra: { context } }
}

function contextOf(extra: { authInfo?: AuthInfo }): McpRequestContext {
  const context = extra.authInfo?.extra?.context as McpRequestContext | undefined
  if (!context) throw new McpError(ErrorCode.InternalError, 'the request reached no caller')
  return context
}

/**
 * A Server builds its own Ajv instance unless given one, and building it cost more than the rest of
 * a tools/call (bench/mcp.ts). It only checks elicitation answers, which this server never asks for.
 */
const sharedValidator = new AjvJsonSchemaValidator()

const INSTRUCTIONS =
  'Switchyard runs typed tool steps on Zendesk, Trello and Vercel accounts the user has connected. ' +
  `Every step tool takes "${INTEGRATION_ARG}": the connected account to act as (it defaults when there is only one). ` +
  `Call ${SEARCH_TOOL} to find steps by words ("ticket", "archive card") or by kind ("ticketing", "boards").`

/**
 * An MCP server that depends on no caller: each request brings its own (requestContext), and a
 * listing reflects that caller's integrations at that moment. Over HTTP the endpoint keeps no
 * sessions (docs/mcp.md), so a server answers one request at a time and then takes the next.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { services, catalog } = options
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE
  const server = new Server(
    { name: 'switchyard', title: 'Switchyard', version: '0.1.0' },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: sharedValidator,
    },
  )

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const { caller } = contextOf(extra)
    const offset = offsetOf(request.params?.cursor)
    const accounts = await accountsOf(services.integrations, caller.user.id, catalog.registry.platformIds())
    // The fixed order: the search tool, the agent tools, then every step in the catalogue's order.
    const leading = [searchTool(), ...agentToolsFor(caller)]
    const all = leading.length + catalog.steps.length
    if (offset > all) throw new McpError(ErrorCode.InvalidParams, 'cursor: is past the end of the list')
    const tools: Tool[] = []
    for (let i = offset; i < Math.min(all, offset + pageSize); i++) {
      tools.push(i < leading.length ? leading[i] : listingOf(catalog.steps[i - leading.length], accounts))
    }
    const next = offset + pageSize
    return { tools, ...(next < all && { nextCursor: cursorOf(next) }) }
  })

  const callTool: ToolCallHandler = async (request, extra) => {
    const { caller, log, refusedArguments } = contextOf(extra)
    const { name, arguments: args = {} } = request.params
    // The keys REST refuses are refused here too (issue 22): before, the SDK dropped them and the step
    // ran. Over HTTP the route has looked for them in the body as it came; otherwise they are looked for here.
    const hostile = refusedArguments ? refusedArguments.get(extra.requestId) : prototypeKeyIn(args)
    if (hostile)
      return errorResult(
        invalidInput([
          { field: hostile.field, message: `must not be a "${hostile.key}" key, which is refused` },
        ]),
      )
    if (name === SEARCH_TOOL) {
      try {
        return successResult(
          await runSearch(
            catalog,
            await accountsOf(services.integrations, caller.user.id, catalog.registry.platformIds()),
            args,
          ),
        )
      } catch (err) {
        return errorResult(err)
      }
    }
    if (isAgentTool(name)) return callAgentTool(services, caller, name, args)
    const step = catalog.byToolName(name)
    if (!step)
      throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name}; call tools/list or ${SEARCH_TOOL}`)
    try {
      return successResult(await runStep(services, caller, step, args))
    } catch (err) {
      if (err instanceof NotConnected) return notConnected(services, step)
      if (!(err instanceof AppError)) log.error({ err, tool: name }, 'MCP tool call failed')
      if (err instanceof AppError && err.code === 'not_found' && named(args)) {
        // Named an account that does not exist: if the platform has none at all, say how to connect one.
        const offered = await platformAccounts(
          services.integrations,
          caller.user.id,
          step.registered.platform.id,
        )
        if (offered.names.length === 0) return notConnected(services, step)
      }
      return errorResult(err)
    }
  }
  // Registered as Protocol registers any request, not through Server's override for tools/call: that
  // override parses each call's request a second time and parses (and copies) each result, and those
  // parses cost more than the rest of the SDK's share of a call (bench/mcp.ts). A result here is only
  // ever built by successResult or errorResult (results.ts), whose shape the SDK's client checks in
  // every test of this server (test/helpers/mcp.ts).
  Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, callTool)
  return server
}

type ToolCallHandler = Parameters<typeof Server.prototype.setRequestHandler<typeof CallToolRequestSchema>>[1]

async function runStep(
  services: Services,
  caller: McpCaller,
  step: StepTool,
  args: Record<string, unknown>,
): Promise<unknown> {
  const { [INTEGRATION_ARG]: named, ...input } = args
  let integration = named
  if (integration === undefined) {
    const { platform } = step.registered
    // A run token is offered only the integrations its agent uses (core/agents/run-scope.ts).
    const only = caller.runId
      ? await services.runTokenScope.integrationIds(caller.runId, caller.user.id)
      : undefined
    const offered = await platformAccounts(services.integrations, caller.user.id, platform.id, only)
    if (offered.names.length === 0) throw new NotConnected()
    if (offered.names.length > 1)
      throw invalidInput([
        {
          field: INTEGRATION_ARG,
          message: `choose the ${platform.title} account to act as: ${offered.names.join(', ')}${offered.more ? ', … (GET /v1/integrations?q= finds the others)' : ''}`,
        },
      ])
    integration = offered.names[0]
  }
  const run = () =>
    services.executor.runAndSummarize(
      caller.user,
      step.registered.entry.id,
      integration,
      input,
      caller.agentId,
    )
  // An external agent's call with its run token goes on its run's timeline, as over REST.
  return (
    caller.runId
      ? await services.toolCalls.record(
          caller.runId,
          caller.user.id,
          step.registered.entry.id,
          integration,
          input,
          run,
        )
      : await run()
  ).output
}

/** The caller has no account on the step's platform (answered with how to connect one). */
class NotConnected extends Error {}

const named = (args: Record<string, unknown>) => args[INTEGRATION_ARG] !== undefined

/** The answer to a step of a platform the caller has not connected: where to connect it. */
function notConnected(services: Services, step: StepTool): CallToolResult {
  const { platform } = step.registered
  const page = `${services.config.publicUrl.replace(/\/+$/, '')}/integrations`
  const runtime = services.runtimes.get(platform.id)
  const pasted = runtime?.definition.auth.pasted
  const rest = [
    `POST /v1/integrations/connect {"platform": "${platform.id}"} and open the connect_url it returns`,
  ]
  if (pasted)
    rest.push(
      `POST /v1/integrations {"platform": "${platform.id}", "credentials": {${pasted.fields.map((f) => `"${f.name}": "…"`).join(', ')}}}`,
    )
  const detail =
    runtime?.mode === 'not_configured'
      ? `${platform.title} is not set up on this Switchyard yet (missing ${runtime.missing.join(', ')}); once it is, connect an account at ${page}`
      : `no ${platform.title} account is connected; connect one at ${page}, or with the REST API: ${rest.join(', or ')}`
  return errorResult(new AppError('not_found', detail), { connect: { page, rest } })
}

function listingOf(step: StepTool, accounts: Accounts): Tool {
  const { platform } = step.registered
  const { names: offered = [], more = false } = accounts.get(platform.id) ?? {}
  const { inputSchema } = step.base
  const integration = more
    ? {
        type: 'string',
        description: `The ${platform.title} account to act as, by account name or id. More than ${MAX_OFFERED_ACCOUNTS} are connected, so they are not listed here: ${SEARCH_TOOL} names the first ${MAX_OFFERED_ACCOUNTS}, GET /v1/integrations?q= finds any.`,
        examples: offered.slice(0, 3),
      }
    : offered.length === 0
      ? {
          type: 'string',
          description: `No ${platform.title} account is connected yet: calling this tool says how to connect one.`,
        }
      : {
          type: 'string',
          enum: offered,
          ...(offered.length === 1 && { default: offered[0] }),
          description:
            offered.length === 1
              ? `The ${platform.title} account to act as; the only one connected is the default.`
              : `The ${platform.title} account to act as, by account name.`,
        }
  const required =
    more || offered.length > 1 ? [INTEGRATION_ARG, ...(inputSchema.required ?? [])] : inputSchema.required
  return {
    ...step.base,
    inputSchema: {
      ...inputSchema,
      properties: { [INTEGRATION_ARG]: integration, ...inputSchema.properties },
      ...(required && { required }),
    },
  }
}

/** Cursors are opaque to clients (MCP pagination): a position in the fixed order. */
function cursorOf(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url')
}

function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  try {
    const { offset } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (Number.isInteger(offset) && offset > 0) return offset
  } catch {
    /* answered below */
  }
  throw new McpError(
    ErrorCode.InvalidParams,
    'cursor: is not one this server gave; start again without a cursor',
  )
}
