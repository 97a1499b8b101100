// The model agent editor's form state (docs/model-agents.md, "The agent") and its conversion to and
// from a definition, free of React so it can be unit tested; components/ModelAgentEditor.tsx renders it.
import type { Agent, AgentInput } from './agents-api.ts'
import type { Tool } from './api.ts'
import { rowId } from './row-id.ts'

export type ModelTool = NonNullable<AgentInput['tools']>[number]
export type ModelBudget = NonNullable<AgentInput['budget']>
export type BudgetField = keyof ModelBudget

/** The budget's boxes, in the order the editor shows them, each with the default an empty box gets. */
export const BUDGET_BOXES: ReadonlyArray<{ field: BudgetField; label: string; default: number }> = [
  { field: 'model_calls', label: 'Model calls', default: 20 },
  { field: 'tool_calls', label: 'Tool calls', default: 40 },
  { field: 'tokens', label: 'Tokens', default: 200_000 },
  { field: 'cost_usd', label: 'Cost (US dollars)', default: 1 },
  { field: 'wall_clock_s', label: 'Working time (seconds)', default: 600 },
  { field: 'tool_errors', label: 'Tool errors to repair', default: 5 },
]

/** Who decides about a tool's calls: fixed by its annotations, except a write's (docs/model-agents.md, "Approvals"). */
export type ApprovalRule = 'never' | 'always' | 'chosen'

export function approvalRuleOf(tool: Pick<Tool, 'effect' | 'destructive'> | undefined): ApprovalRule {
  if (!tool) return 'chosen'
  if (tool.effect === 'read') return 'never'
  return tool.destructive || tool.effect === 'delete' ? 'always' : 'chosen'
}

export interface ModelToolRow {
  id: string
  tool: string
  /** An integration id, or '' for any of the owner's integrations on the tool's platform. */
  integration: string
  /** What the model calls it; '' for the default (the step's id after its platform). */
  name: string
  /** Kept as stored: the editor has no box for it, and saving must not drop it. */
  description: string
  requireApproval: boolean
  strict: boolean
  /**
   * Set when the tool was just chosen: its picker takes the platform's first active integration, as
   * a step's does, so a person with one account binds it; '' stays a deliberate "any of my accounts".
   */
  pickFirst?: boolean
}

export interface ModelForm {
  instructions: string
  connection: string
  modelName: string
  tools: ModelToolRow[]
  outputMode: 'text' | 'schema'
  outputSchema: string
  budget: Partial<Record<BudgetField, string>>
}

export const emptyModelForm = (): ModelForm => ({
  instructions: '',
  connection: '',
  modelName: '',
  tools: [],
  outputMode: 'text',
  outputSchema: '',
  budget: {},
})

export const emptyModelTool = (tool = '', integration = ''): ModelToolRow => ({
  id: rowId(),
  tool,
  integration,
  name: '',
  description: '',
  requireApproval: false,
  strict: false,
})

/** What the model calls a tool when it is given no name (core/models/definition.ts, toolNameOf). */
export const defaultToolName = (toolId: string) => toolId.split('.').slice(1).join('_')

const SCHEMA_EXAMPLE = {
  type: 'object',
  properties: { summary: { type: 'string' } },
  required: ['summary'],
}
export const OUTPUT_SCHEMA_EXAMPLE = JSON.stringify(SCHEMA_EXAMPLE, null, 2)

/**
 * The model agent's own fields of a definition, with what cannot be read before sending (keyed
 * like the server's paths: `budget.tokens`, `output`). `toolOf` gives a catalogue entry once loaded.
 */
export function modelInputOf(
  form: ModelForm,
  toolOf: (id: string) => Pick<Tool, 'effect' | 'destructive'> | undefined,
): {
  fields: Pick<AgentInput, 'instructions' | 'model' | 'tools' | 'budget' | 'output'>
  errors: Record<string, string>
} {
  const errors: Record<string, string> = {}
  const tools = form.tools.map((r): ModelTool => {
    const t: ModelTool = { tool: r.tool }
    if (r.integration) t.integration = r.integration
    if (r.name.trim()) t.name = r.name.trim()
    if (r.description.trim()) t.description = r.description.trim()
    const rule = approvalRuleOf(toolOf(r.tool))
    // Only a write's approval is the author's to set; the server refuses it on a read.
    if (rule === 'chosen' && r.requireApproval) t.require_approval = true
    if (r.strict) t.strict = true
    return t
  })
  const budget: ModelBudget = {}
  for (const box of BUDGET_BOXES) {
    const text = (form.budget[box.field] ?? '').trim().replace(/[,_\s$]/g, '')
    if (text === '') continue
    const value = Number(text)
    if (!Number.isFinite(value))
      errors[`budget.${box.field}`] = 'Enter a number, or leave it empty for the default.'
    else budget[box.field] = value
  }
  let output: Record<string, unknown> = {}
  if (form.outputMode === 'schema') {
    const text = form.outputSchema.trim()
    if (text === '') errors.output = 'Enter a JSON Schema, or choose free text.'
    else
      try {
        const parsed: unknown = JSON.parse(text)
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          errors.output = 'A JSON Schema is an object, { … }.'
        else output = parsed as Record<string, unknown>
      } catch (err) {
        errors.output = `Not valid JSON: ${err instanceof Error ? err.message : String(err)}`
      }
  }
  const fields: Pick<AgentInput, 'instructions' | 'model' | 'tools' | 'budget' | 'output'> = {
    instructions: form.instructions,
    tools,
    budget,
    output,
  }
  if (form.connection || form.modelName.trim())
    fields.model = { connection: form.connection, name: form.modelName.trim() }
  return { fields, errors }
}

/** The form for a stored model agent. */
export function modelFormOf(agent: Agent): ModelForm {
  const output = agent.output ?? {}
  return {
    instructions: agent.instructions ?? '',
    connection: agent.model?.connection ?? '',
    modelName: agent.model?.name ?? '',
    tools: (agent.tools ?? []).map((t) => ({
      id: rowId(),
      tool: t.tool,
      integration: t.integration ?? '',
      name: t.name ?? '',
      description: t.description ?? '',
      requireApproval: t.require_approval ?? false,
      strict: t.strict ?? false,
    })),
    outputMode: Object.keys(output).length > 0 ? 'schema' : 'text',
    outputSchema: Object.keys(output).length > 0 ? JSON.stringify(output, null, 2) : '',
    budget: Object.fromEntries(
      Object.entries(agent.budget ?? {}).map(([field, value]) => [field, String(value)]),
    ),
  }
}
