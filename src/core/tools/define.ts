import type { z } from 'zod'
import type { ApiClient } from '../http/api-client.ts'
import type { Plan } from '../store/schema.ts'

export type Effect = 'read' | 'write' | 'delete'

export interface ToolContext {
  api: ApiClient
  integration: { id: string; accountName: string; fields: Record<string, string> }
  /** The same client, authenticated with credentials given in the step instead of the integration's. */
  withPastedCredentials(values: Record<string, string>): ApiClient
}

/** The one line a person reads first about a run's result (docs/tools.md, "Summaries"). */
export interface Summary {
  text: string
  /** The object on the platform, on the integration's own host (a sandbox's objects link to the sandbox). */
  url?: string
  /** `error`: the platform answered with a failure that the step returns as data (an API Call's 4xx or 5xx). */
  tone?: 'error'
}

export interface SummaryContext<I = unknown> {
  input: I
  integration: ToolContext['integration']
  /** The integration's base URL, without the API prefix: links are built from it, not from the real platform's domain. */
  baseUrl: string
}

export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  id: string
  title: string
  description: string
  effect: Effect
  /**
   * A write that cannot simply be taken back by adding something (archiving, cancelling): MCP's
   * destructiveHint (docs/mcp.md). A `delete` step is destructive without saying so.
   */
  destructive?: boolean
  /** Running it twice with the same input changes nothing more (MCP's idempotentHint); reads and deletes are. */
  idempotent?: boolean
  input: I
  output: O
  /** Legacy steps stay runnable for old workflows but are marked in the catalogue. */
  legacy?: boolean
  requiredPlan?: Plan
  /**
   * Asked in the web app before the step runs, for steps whose effect is hard to take back even when
   * it is not a delete (archiving a card, cancelling a build). Delete steps always ask.
   */
  confirm?: string
  /**
   * Where the values of id fields come from, by input field name (docs/tool-options.md): the web
   * app's pickers, `GET /v1/tools/{id}/options/{field}` and `switchyard tools options` all read them.
   */
  options?: Record<string, OptionsSource>
  run(ctx: ToolContext, input: z.output<I>): Promise<z.input<O>>
  /** The result in one line, with a link to the object where the platform has one. */
  summarize?(output: z.output<O>, ctx: SummaryContext<z.output<I>>): Summary
}

export type AnyTool = ToolDefinition<z.ZodType, z.ZodType>

/** Identity function that gives a declaration its types; declarations are data (docs/architecture.md, "Layout"). */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(tool: ToolDefinition<I, O>): AnyTool {
  return tool as unknown as AnyTool
}

/** One choice for an id field: the value the step takes, and what a person reads. */
export interface FieldOption {
  value: string | number
  label: string
  description?: string
}

export interface OptionsPage {
  options: FieldOption[]
  next_cursor: string | null
}

export interface OptionsQuery {
  /** The search text, trimmed; empty lists everything. */
  q: string
  /** A next_cursor this source returned before. */
  cursor?: string
  /** The values of the fields named in dependsOn, all present. */
  depends: Record<string, string>
}

/** The options of one field, listed with the step's own authenticated client. */
export interface OptionsSource {
  /** Input fields whose values narrow the options (the lists of the chosen board). */
  dependsOn?: string[]
  list(ctx: ToolContext, query: OptionsQuery): Promise<OptionsPage>
}
