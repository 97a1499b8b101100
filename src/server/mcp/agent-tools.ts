import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { AppError, notFound } from '../../core/errors.ts'
import { MAX_PAGE, MAX_SEARCH } from '../../core/paging.ts'
import { parseOrThrow } from '../../core/validation.ts'
import type { Services } from '../../services.ts'
import type { McpCaller } from './auth.ts'
import { errorResult, successResult } from './results.ts'

// Agents and runs over MCP (issue 12 §3): list the caller's agents, start one with inputs, and read a
// run with its timeline, so a model can start work and follow it.

// Paged as GET /v1/agents is (docs/rest-api.md, "Lists are paged"): a client with thousands of
// agents reads a page, and `next_cursor` says where the next one starts.
const ListAgents = z
  .object({
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_PAGE)
      .optional()
      .describe(`Page size, 1 to ${MAX_PAGE} (default 50)`),
    cursor: z.string().max(400).optional().describe('The next_cursor of the previous page'),
    search: z
      .string()
      .max(MAX_SEARCH)
      .optional()
      .describe('Words to find, ignoring case, in the name or description'),
  })
  .strict()
const StartRun = z
  .object({
    agent: z.string().min(1, "give the agent's id or name").describe('The agent to start, by id or by name'),
    inputs: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Values for the agent's input variables, by name"),
  })
  .strict()
const GetRun = z
  .object({
    run_id: z.string().min(1, 'give the run id that start_agent_run returned').describe('The run to read'),
  })
  .strict()

const ListApprovals = z
  .object({
    status: z
      .enum(['pending', 'decided', 'expired', 'cancelled', 'all'])
      .default('pending')
      .describe('Which requests: pending by default'),
  })
  .strict()
const DecideApproval = z
  .object({
    approval_id: z
      .string()
      .min(1, 'give the approval id that list_approvals returned')
      .describe('The request'),
    decisions: z
      .array(
        z
          .object({
            tool_call_id: z.string().min(1).describe('The call decided'),
            decision: z.enum(['approve', 'approve_for_run', 'deny']),
            input: z
              .record(z.string(), z.unknown())
              .optional()
              .describe("Edited input, checked against the step's schema"),
            reason: z.string().max(2000).optional().describe('Given to the model with a denial'),
          })
          .strict(),
      )
      .min(1),
  })
  .strict()

const schemaOf = (schema: z.ZodType) => {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>
  return json as Tool['inputSchema']
}

/** Views hold Dates; a tool result is plain JSON, the same in its text and its structuredContent. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>

const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

export const AGENT_TOOLS: Tool[] = [
  {
    name: 'list_agents',
    title: 'List agents',
    description:
      "The caller's agents, newest first, a page at a time: id, name, description, kind, version and their input variables (name, type, required), and next_cursor for the next page.",
    inputSchema: schemaOf(ListAgents),
    annotations: { title: 'List agents', ...read },
  },
  {
    name: 'start_agent_run',
    title: 'Start an agent run',
    description:
      'Starts an agent with values for its input variables and returns the queued run; read it with get_run to follow it.',
    inputSchema: schemaOf(StartRun),
    // Starting an agent runs its steps, which may write to the platforms.
    annotations: {
      title: 'Start an agent run',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
  {
    name: 'get_run',
    title: 'Read a run',
    description:
      "A run with its status, inputs, result or error, and its timeline: each step's tool, input, output or error and attempts.",
    inputSchema: schemaOf(GetRun),
    annotations: { title: 'Read a run', ...read },
  },
  {
    name: 'list_approvals',
    title: 'List approvals',
    description:
      "Model runs' tool calls waiting for a person (docs/model-agents.md): each request's calls in words, with their inputs.",
    inputSchema: schemaOf(ListApprovals),
    annotations: { title: 'List approvals', ...read },
  },
  {
    name: 'decide_approval',
    title: 'Decide an approval',
    description:
      'Approve, approve with edited input, approve a tool for the rest of the run, or deny with a reason (given to the model), per call. Decided by the person whose key calls this.',
    inputSchema: schemaOf(DecideApproval),
    // An approval lets a write or a destructive step go out.
    annotations: {
      title: 'Decide an approval',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
]

const NAMES = new Set(AGENT_TOOLS.map((t) => t.name))

export function isAgentTool(name: string): boolean {
  return NAMES.has(name)
}

/** The agent tools a caller may use: a run token reads its own run only. */
export function agentToolsFor(caller: McpCaller): Tool[] {
  return caller.runId ? AGENT_TOOLS.filter((t) => t.name === 'get_run') : AGENT_TOOLS
}

export async function callAgentTool(
  services: Services,
  caller: McpCaller,
  name: string,
  args: unknown,
): Promise<CallToolResult> {
  try {
    if (!agentToolsFor(caller).some((t) => t.name === name))
      throw new AppError('forbidden', 'a run token can only call tool steps and read its own run')
    switch (name) {
      case 'list_agents': {
        const { limit, cursor, search } = parseOrThrow(ListAgents, args ?? {})
        const { agents, next_cursor } = await services.agents.page(caller.user.id, {
          limit,
          cursor,
          q: search,
        })
        return successResult(
          plain({
            next_cursor,
            agents: agents.map((a) => ({
              id: a.id,
              name: a.name,
              description: a.description,
              kind: a.kind,
              version: a.version,
              inputs: a.inputs,
            })),
          }),
        )
      }
      case 'start_agent_run': {
        const { agent, inputs } = parseOrThrow(StartRun, args)
        const found = await services.agents.find(caller.user.id, agent)
        return successResult(plain(await services.runs.start(caller.user, found.id, inputs, 'api')))
      }
      case 'list_approvals': {
        const { status } = parseOrThrow(ListApprovals, args)
        return successResult(plain({ approvals: await services.approvals.list(caller.user.id, status) }))
      }
      case 'decide_approval': {
        const { approval_id, decisions } = parseOrThrow(DecideApproval, args)
        return successResult(plain(await services.approvals.decide(caller.user, approval_id, { decisions })))
      }
      default: {
        const { run_id } = parseOrThrow(GetRun, args)
        if (caller.runId && caller.runId !== run_id) throw notFound('run')
        return successResult(plain(await services.runs.get(caller.user.id, run_id)))
      }
    }
  } catch (err) {
    return errorResult(err)
  }
}
