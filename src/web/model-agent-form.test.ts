import { describe, expect, it } from 'vitest'
import { DEFAULT_BUDGET } from '../core/models/budget.ts'
import { routeAgentErrors } from './agent-errors.ts'
import { agentInputOf, emptyAgentForm, formOfAgent } from './agent-form.ts'
import type { Agent } from './agents-api.ts'
import {
  approvalRuleOf,
  BUDGET_BOXES,
  emptyModelTool,
  modelInputOf,
  type ModelForm,
} from './model-agent-form.ts'

const CATALOGUE = {
  'zendesk.get_ticket': { effect: 'read', destructive: false },
  'zendesk.update_ticket': { effect: 'write', destructive: false },
  'zendesk.delete_ticket': { effect: 'delete', destructive: true },
  'trello.archive_card': { effect: 'write', destructive: true },
} as const
const toolOf = (id: string) => CATALOGUE[id as keyof typeof CATALOGUE]

const form = (patch: Partial<ModelForm>): ModelForm => ({ ...emptyAgentForm().model, ...patch })

describe('the model agent form', () => {
  it('shows each budget box with the default the server gives an empty one', () => {
    expect(Object.fromEntries(BUDGET_BOXES.map((b) => [b.field, b.default]))).toEqual(DEFAULT_BUDGET)
  })

  it("takes each tool's approval rule from its annotations, never from the author for reads and destructive steps", () => {
    expect(approvalRuleOf(toolOf('zendesk.get_ticket'))).toBe('never')
    expect(approvalRuleOf(toolOf('zendesk.update_ticket'))).toBe('chosen')
    expect(approvalRuleOf(toolOf('zendesk.delete_ticket'))).toBe('always')
    expect(approvalRuleOf(toolOf('trello.archive_card'))).toBe('always')
    const tools = Object.keys(CATALOGUE).map((id) => ({ ...emptyModelTool(id), requireApproval: true }))
    const { fields } = modelInputOf(form({ tools }), toolOf)
    expect(fields.tools!.map((t) => t.require_approval)).toEqual([undefined, true, undefined, undefined])
  })

  it('sends a tool bound to any integration without one, and a name only when given', () => {
    const { fields } = modelInputOf(
      form({
        tools: [
          { ...emptyModelTool('zendesk.get_ticket', 'int_1'), name: ' read_it ' },
          emptyModelTool('zendesk.update_ticket'),
        ],
      }),
      toolOf,
    )
    expect(fields.tools).toEqual([
      { tool: 'zendesk.get_ticket', integration: 'int_1', name: 'read_it' },
      { tool: 'zendesk.update_ticket' },
    ])
  })

  it.each([
    ['abc', 'budget.tokens'],
    ['1e', 'budget.tokens'],
  ])('names the budget box whose text %s is no number', (text, place) => {
    const { errors } = modelInputOf(form({ budget: { tokens: text } }), toolOf)
    expect(Object.keys(errors)).toEqual([place])
  })

  it('reads budget numbers as people write them, and leaves empty boxes to the default', () => {
    const { fields, errors } = modelInputOf(
      form({ budget: { tokens: '200,000', cost_usd: '$0.50', model_calls: ' ' } }),
      toolOf,
    )
    expect(errors).toEqual({})
    expect(fields.budget).toEqual({ tokens: 200000, cost_usd: 0.5 })
  })

  it.each([
    ['', 'Enter a JSON Schema'],
    ['{ not json', 'Not valid JSON'],
    ['[1]', 'is an object'],
  ])('names the output box when its schema %j cannot be read', (text, message) => {
    const { errors } = modelInputOf(form({ outputMode: 'schema', outputSchema: text }), toolOf)
    expect(errors.output).toContain(message)
  })

  it('round-trips a stored model agent through the form', () => {
    const agent = {
      id: 'agt_1',
      name: 'Triage',
      description: '',
      kind: 'model',
      inputs: [{ name: 'ticket_id', type: 'number', required: true, description: '' }],
      steps: [],
      output: { type: 'object', properties: { summary: { type: 'string' } } },
      instructions: 'Read {{ inputs.ticket_id }} with get_ticket',
      model: { connection: 'mc_sandbox', name: 'sandbox-model' },
      tools: [
        { tool: 'zendesk.get_ticket', description: 'Reads one' },
        { tool: 'zendesk.update_ticket', integration: 'int_1', require_approval: true, strict: true },
      ],
      budget: { model_calls: 5, cost_usd: 0.25 },
      version: 1,
      created_at: '',
      updated_at: '',
    } as Agent
    const { input, errors } = agentInputOf(
      formOfAgent(agent, () => undefined),
      () => undefined,
      toolOf,
    )
    expect(errors).toEqual({})
    expect(input).toEqual({
      name: 'Triage',
      kind: 'model',
      inputs: [{ name: 'ticket_id', type: 'number', required: true }],
      instructions: agent.instructions,
      model: agent.model,
      tools: agent.tools,
      budget: agent.budget,
      output: agent.output,
    })
  })

  it("puts the server's field errors of a model agent at its fields", () => {
    const { at, other } = routeAgentErrors(
      [
        { field: 'instructions', message: 'tell the model what to do' },
        { field: 'model.connection', message: 'no such connection' },
        { field: 'tools[1].strict', message: "ticket_id is optional, which OpenAI's strict mode refuses" },
        { field: 'tools[0].require_approval', message: 'a read never needs approval' },
        { field: 'tools[0]', message: 'whole tool' },
        { field: 'tools[4].tool', message: 'out of range' },
        { field: 'budget.tokens', message: 'above your plan' },
        { field: 'output', message: 'not a JSON Schema' },
      ],
      { kind: 'model', inputCount: 0, stepFields: [], outputNames: [], toolCount: 2 },
    )
    expect(at).toEqual({
      instructions: ['tell the model what to do'],
      'model.connection': ['no such connection'],
      'tools.1.strict': ["ticket_id is optional, which OpenAI's strict mode refuses"],
      'tools.0.require_approval': ['a read never needs approval'],
      'tools.0': ['whole tool'],
      tools: ['4.tool: out of range'],
      'budget.tokens': ['above your plan'],
      output: ['not a JSON Schema'],
    })
    expect(other).toEqual([])
  })
})
