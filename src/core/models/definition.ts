import { z } from 'zod'
import { BudgetInput } from './budget.ts'

/** What the model calls a tool: OpenAI's and Anthropic's common rule for function names. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * One tool a model agent may use (docs/model-agents.md, "Tools"): a tool step bound to one of the
 * owner's integrations, or, without `integration`, to any of the owner's integrations on the step's
 * platform, the model choosing one by account name.
 */
export const ModelTool = z.strictObject({
  tool: z
    .string({ error: 'name the tool step, for example zendesk.get_ticket' })
    .min(1, 'name the tool step, for example zendesk.get_ticket'),
  integration: z.string().min(1, 'give an integration id or account name, or leave it out').optional(),
  name: z
    .string()
    .regex(TOOL_NAME, 'letters, digits, _ or -, at most 64 (what the model calls it)')
    .optional(),
  description: z.string().max(1000, 'at most 1,000 characters').optional(),
  /** A write that needs a person's approval; a destructive step always does, a read never. */
  require_approval: z.boolean({ error: 'say true or false' }).optional(),
  /** Sent with OpenAI's strict mode: saving checks the schema against its rules. */
  strict: z.boolean({ error: 'say true or false' }).optional(),
})

export const ModelChoice = z.strictObject({
  connection: z
    .string({ error: 'give the model connection (its id or name; GET /v1/model-connections lists them)' })
    .min(1, 'give the model connection (its id or name)'),
  name: z
    .string({ error: 'give the model name, for example gpt-4.1' })
    .min(1, 'give the model name')
    .max(200),
})

export const ModelAgentFields = {
  instructions: z.string().max(20_000, 'at most 20,000 characters').optional(),
  model: ModelChoice.optional(),
  tools: z.array(ModelTool, { error: 'give the tools as a list' }).max(64, 'at most 64 tools').default([]),
  budget: BudgetInput,
}

export type ModelToolDefinition = z.output<typeof ModelTool>

/** The name the model calls a tool by: the one given, else the step's id after its platform. */
export const toolNameOf = (t: ModelToolDefinition): string => t.name ?? t.tool.split('.').slice(1).join('_')
