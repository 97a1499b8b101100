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

export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  id: string
  title: string
  description: string
  effect: Effect
  input: I
  output: O
  /** Legacy steps stay runnable for old workflows but are marked in the catalogue. */
  legacy?: boolean
  requiredPlan?: Plan
  /**
   * Where the values of id fields come from, by input field name (docs/tool-options.md): the web
   * app's pickers, `GET /v1/tools/{id}/options/{field}` and `switchyard tools options` all read them.
   */
  options?: Record<string, OptionsSource>
  run(ctx: ToolContext, input: z.output<I>): Promise<z.input<O>>
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
