import { Ajv2020 } from 'ajv/dist/2020.js'
import type { User } from '../access/users.ts'
import type { AgentDefinition } from '../agents/definition.ts'
import type { Integrations } from '../connections/integrations.ts'
import { AppError, type FieldError } from '../errors.ts'
import type { ToolRegistry } from '../tools/catalog.ts'
import { budgetProblems, type Budget } from './budget.ts'
import type { ModelConnections } from './connections.ts'
import { toolSchema } from './toolset.ts'
import { strictModeProblems } from './strict-schema.ts'
import { anthropicSchemaProblems } from './anthropic-schema.ts'
import { toolNameOf, type ModelToolDefinition } from './definition.ts'
import type { RegisteredTool } from '../tools/catalog.ts'
import type { ModelProtocol } from '../store/schema.ts'

const ajv = new Ajv2020({ strict: false, validateFormats: false })

/**
 * What saving a model agent checks beyond its shape (docs/model-agents.md): the connection is one
 * the author may use, each tool exists and is bound to one of the author's integrations, an approval
 * setting is one its annotations allow, a strict tool's schema is one OpenAI accepts, the output
 * schema compiles, and the budget is within the plan's ceilings. Ids replace names as stored, so
 * renaming an account or a connection never breaks the agent.
 */
/**
 * What the agent's provider would refuse in one tool's schema: OpenAI's strict mode when the tool
 * asks for it, Anthropic's rules for an Anthropic connection. The field is the tool's entry and the
 * message names the tool and the place in its schema.
 */
export function providerSchemaProblems(
  protocol: ModelProtocol | undefined,
  registered: RegisteredTool,
  t: ModelToolDefinition,
  i: number,
): FieldError[] {
  const schema = toolSchema(registered, t)
  const errors = t.strict ? strictModeProblems(schema, `tools[${i}].strict`) : []
  if (protocol === 'anthropic')
    for (const p of anthropicSchemaProblems(schema))
      errors.push({
        field: `tools[${i}].tool`,
        message: `Anthropic's Messages API would refuse ${toolNameOf(t)} (${t.tool}): ${p.path} ${p.message}`,
      })
  return errors
}

export async function modelAgentProblems(
  user: User,
  def: AgentDefinition,
  registry: ToolRegistry,
  integrations: Integrations,
  connections: ModelConnections,
  ceiling: Budget,
): Promise<FieldError[]> {
  const errors: FieldError[] = []
  let protocol: ModelProtocol | undefined
  if (def.model) {
    try {
      const connection = await connections.resolve(user.id, def.model.connection)
      def.model.connection = connection.id
      protocol = connection.protocol
    } catch (err) {
      if (!(err instanceof AppError)) throw err
      errors.push({
        field: 'model.connection',
        message: `${err.message}; GET /v1/model-connections lists yours`,
      })
    }
  }
  for (const [i, t] of def.tools.entries()) {
    const registered = registry.get(t.tool)
    if (!registered) {
      errors.push({
        field: `tools[${i}].tool`,
        message: `there is no tool step ${t.tool}; GET /v1/tools lists them`,
      })
      continue
    }
    const { tool, platform } = registered
    if (t.require_approval !== undefined && tool.effect === 'read')
      errors.push({ field: `tools[${i}].require_approval`, message: 'a read never needs approval' })
    if (t.require_approval === false && (tool.effect === 'delete' || tool.destructive))
      errors.push({
        field: `tools[${i}].require_approval`,
        message: `${tool.title} is destructive: it always needs a person's approval`,
      })
    if (t.integration) {
      try {
        t.integration = (await integrations.resolve(user.id, platform.id, t.integration)).id
      } catch (err) {
        if (!(err instanceof AppError)) throw err
        errors.push({
          field: `tools[${i}].integration`,
          message: err.extras.errors?.[0]?.message ?? err.message,
        })
      }
    }
    errors.push(...providerSchemaProblems(protocol, registered, t, i))
  }
  if (Object.keys(def.output).length) {
    try {
      ajv.compile(def.output)
    } catch (err) {
      errors.push({
        field: 'output',
        message: `not a JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
      })
    }
  }
  errors.push(...budgetProblems(def.budget, user.plan, ceiling))
  return errors
}
