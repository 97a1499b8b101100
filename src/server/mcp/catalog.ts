import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { RegisteredTool, ToolRegistry } from '../../core/tools/catalog.ts'
import type { AnyTool } from '../../core/tools/define.ts'

/**
 * Tool names: the step id with dots as underscores (`zendesk.create_ticket` → `zendesk_create_ticket`).
 * MCP allows dots too, but the model APIs most clients call accept only letters, digits, `_` and `-`
 * and at most 64 characters, so names keep to that.
 */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

export const SEARCH_TOOL = 'search_tools'

/** The argument naming which connected account a tool acts as; no step declares an input of this name. */
export const INTEGRATION_ARG = 'integration'

export function toolNameOf(stepId: string): string {
  return stepId.replace(/\./g, '_')
}

/** What MCP clients are told about a step's effect. Every hint is set: absent ones default to "destructive, open world". */
export function annotationsOf(tool: Pick<AnyTool, 'effect' | 'destructive' | 'idempotent'>): ToolAnnotations {
  const readOnly = tool.effect === 'read'
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && (tool.effect === 'delete' || tool.destructive === true),
    idempotentHint: tool.effect !== 'write' || tool.idempotent === true,
    // Every step talks to a platform whose data others change too.
    openWorldHint: true,
  }
}

export interface StepTool {
  name: string
  registered: RegisteredTool
  /** The listing without the caller's accounts (the `integration` argument is added per caller). */
  base: Omit<Tool, 'inputSchema'> & {
    inputSchema: { type: 'object'; properties: Record<string, object>; required?: string[] } & Record<
      string,
      unknown
    >
  }
}

/** Every step of every platform as an MCP tool, in the catalogue's fixed order; built once per process. */
export class McpCatalog {
  readonly steps: StepTool[]
  private readonly byName = new Map<string, StepTool>()

  constructor(readonly registry: ToolRegistry) {
    this.steps = registry.list().map((entry) => {
      const registered = registry.get(entry.id)!
      const name = toolNameOf(entry.id)
      if (!TOOL_NAME.test(name) || name === SEARCH_TOOL)
        throw new Error(`step ${entry.id} has no valid MCP tool name (${name})`)
      if (this.byName.has(name))
        throw new Error(
          `steps ${this.byName.get(name)!.registered.entry.id} and ${entry.id} share the MCP name ${name}`,
        )
      const input = withoutDialect(entry.inputSchema)
      const properties = (input.properties ?? {}) as Record<string, object>
      if (INTEGRATION_ARG in properties)
        throw new Error(
          `step ${entry.id} declares an input named "${INTEGRATION_ARG}", which MCP uses for the account`,
        )
      const title = entry.title.startsWith(registered.platform.title)
        ? entry.title
        : `${registered.platform.title}: ${entry.title}`
      const step: StepTool = {
        name,
        registered,
        base: {
          name,
          title,
          description: entry.description,
          inputSchema: { ...input, type: 'object', properties },
          outputSchema: { ...withoutDialect(entry.outputSchema), type: 'object' },
          annotations: { title, ...annotationsOf(registered.tool) },
        },
      }
      this.byName.set(name, step)
      return step
    })
  }

  byToolName(name: string): StepTool | undefined {
    return this.byName.get(name)
  }
}

/**
 * The catalogue's schemas name their JSON Schema dialect (2020-12); MCP's default dialect is the
 * same, and some clients refuse a `$schema` they do not know, so it is left out.
 */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema
  return rest
}
