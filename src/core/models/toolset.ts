import type { AgentDefinition } from '../agents/definition.ts'
import { ESCALATE_TOOL } from '../agents/definition.ts'
import type { RegisteredTool, ToolRegistry } from '../tools/catalog.ts'
import type { OfferedTool } from './client.ts'
import { toolNameOf, type ModelToolDefinition } from './definition.ts'

/** The field a tool bound to "any of my integrations on this platform" adds: the account to act on. */
export const ACCOUNT_FIELD = 'account'

export type ApprovalRule = 'required' | 'none'

/** One tool as a run offers it: the step, how it is bound, and whether a person approves each call. */
export interface BoundTool {
  name: string
  definition: ModelToolDefinition
  registered: RegisteredTool
  approval: ApprovalRule
}

/**
 * The approval rule comes from the step's annotations, never from the model (docs/model-agents.md,
 * "Approvals"): a destructive step always needs a person, a write when its author said so, a read
 * never.
 */
export function approvalOf(registered: RegisteredTool, t: ModelToolDefinition): ApprovalRule {
  const { tool } = registered
  if (tool.effect === 'delete' || tool.destructive) return 'required'
  if (tool.effect === 'write' && t.require_approval) return 'required'
  return 'none'
}

/** The input schema the model sees: the step's own, plus the account to act on when it may choose. */
export function toolSchema(registered: RegisteredTool, t: ModelToolDefinition): Record<string, unknown> {
  const schema = structuredClone(registered.entry.inputSchema) as Record<string, unknown> & {
    properties?: Record<string, unknown>
    required?: string[]
  }
  delete schema.$schema
  if (t.integration) return schema
  schema.properties = {
    [ACCOUNT_FIELD]: {
      type: 'string',
      description: `The account name of the ${registered.platform.title} integration to act on`,
    },
    ...(schema.properties ?? {}),
  }
  schema.required = [ACCOUNT_FIELD, ...(schema.required ?? []).filter((f) => f !== ACCOUNT_FIELD)]
  return schema
}

export function boundTools(def: AgentDefinition, registry: ToolRegistry): Map<string, BoundTool> {
  const tools = new Map<string, BoundTool>()
  for (const t of def.tools) {
    const registered = registry.get(t.tool)
    if (!registered) continue // a step removed since saving: the model is not offered it
    tools.set(toolNameOf(t), {
      name: toolNameOf(t),
      definition: t,
      registered,
      approval: approvalOf(registered, t),
    })
  }
  return tools
}

/** The owner's accounts a tool may choose among on one platform; `more` when there are others past these. */
export interface OfferedAccounts {
  names: string[]
  more: boolean
}

/**
 * Each saved tool's schema as the model sees it, made once: a run offers its tools on every model
 * call, and copying each step's schema every time was the service's costliest function of its own
 * in the model bench (docs/benchmarks.md, "Model agents"). Frozen, since every run shares it.
 */
const offeredSchemas = new WeakMap<ModelToolDefinition, Record<string, unknown>>()

function offeredSchema(b: BoundTool): Record<string, unknown> {
  let schema = offeredSchemas.get(b.definition)
  if (!schema) offeredSchemas.set(b.definition, (schema = deepFreeze(toolSchema(b.registered, b.definition))))
  return schema
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

export function offeredTools(
  tools: Map<string, BoundTool>,
  accounts: Map<string, OfferedAccounts>,
): OfferedTool[] {
  const offered: OfferedTool[] = [...tools.values()].map((b) => {
    const { names, more } = accounts.get(b.registered.platform.id) ?? { names: [], more: false }
    const listed = names.length ? names.join(', ') : '(no account connected)'
    const choose = b.definition.integration
      ? ''
      : ` Set ${ACCOUNT_FIELD} to one of: ${listed}${more ? ', or any other of your account names' : ''}.`
    let parameters = offeredSchema(b)
    // A complete list is an enum too, not only words: the provider holds the model to it (and the
    // sandbox model picks from it) instead of the model making an account name up.
    const properties = parameters.properties as Record<string, Record<string, unknown>> | undefined
    const account = properties?.[ACCOUNT_FIELD]
    if (!b.definition.integration && account && names.length > 0 && !more)
      parameters = {
        ...parameters,
        properties: { ...properties, [ACCOUNT_FIELD]: { ...account, enum: names } },
      }
    return {
      name: b.name,
      description: `${b.definition.description ?? b.registered.tool.description}${choose}`,
      parameters,
      ...(b.definition.strict ? { strict: true } : {}),
    }
  })
  offered.push({
    name: ESCALATE_TOOL,
    description: 'Hand this task to a person when you cannot or should not finish it yourself; the run ends.',
    parameters: {
      type: 'object',
      properties: { reason: { type: 'string', description: 'Why a person is needed' } },
      required: ['reason'],
      additionalProperties: false,
    },
  })
  return offered
}

/** A pending call in words, for the person who approves it: the step, the account and each field. */
export function callInWords(b: BoundTool, input: unknown, account: string | null): string {
  const fields =
    input && typeof input === 'object'
      ? Object.entries(input as Record<string, unknown>)
          .filter(([k]) => k !== ACCOUNT_FIELD)
          .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      : []
  return `${b.registered.tool.title}${account ? ` on ${account}` : ''}${fields.length ? ` — ${fields.join('; ')}` : ''}`
}
