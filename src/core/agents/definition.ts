import { z } from 'zod'
import { checkExpression, checkTemplates } from '../expressions/templates.ts'
import type { FieldError } from '../errors.ts'
import { ModelAgentFields, TOOL_NAME, toolNameOf } from '../models/definition.ts'

/** Names a person and a template both write: `{{ inputs.subject }}`, `{{ steps.find_card.output.id }}`. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
const identifier = (what: string) =>
  z
    .string({ error: `give the ${what}` })
    .regex(IDENTIFIER, `a ${what} starts with a letter or _, then letters, digits or _ (at most 64)`)

export const INPUT_TYPES = ['string', 'number', 'boolean', 'object', 'array'] as const
export type InputType = (typeof INPUT_TYPES)[number]

export const InputVariable = z.object({
  name: identifier('input name'),
  type: z.enum(INPUT_TYPES, { error: `choose a type: ${INPUT_TYPES.join(', ')}` }),
  required: z.boolean({ error: 'say true or false' }).default(false),
  description: z.string().max(1000, 'at most 1,000 characters').default(''),
})

export const MAX_STEPS = 50

export const Step = z.object({
  key: identifier('step key'),
  tool: z
    .string({ error: 'name the tool step, for example trello.create_card' })
    .min(1, 'name the tool step, for example trello.create_card'),
  integration: z
    .string({ error: 'give the id or account name of the integration the step runs on' })
    .min(1, 'give the id or account name of the integration the step runs on'),
  input: z
    .record(z.string(), z.unknown(), { error: 'give the step input as an object of fields' })
    .default({}),
  condition: z.string().max(2000, 'at most 2,000 characters').optional(),
  on_failure: z
    .enum(['stop', 'continue'], { error: 'choose stop (the run fails) or continue (the next step runs)' })
    .default('stop'),
})

export const AgentInput = z.object({
  name: z
    .string({ error: 'give the agent a name' })
    .trim()
    .min(1, 'give the agent a name')
    .max(100, 'at most 100 characters'),
  description: z.string().max(2000, 'at most 2,000 characters').default(''),
  inputs: z
    .array(InputVariable, { error: 'give the input variables as a list' })
    .max(50, 'at most 50 input variables')
    .default([]),
  kind: z.enum(['steps', 'external', 'model'], {
    error:
      'choose steps (Switchyard runs tool steps), external (Switchyard delivers each run to your service) or model (a language model works through tool steps)',
  }),
  steps: z
    .array(Step, { error: 'give the steps as a list' })
    .max(MAX_STEPS, `at most ${MAX_STEPS} steps`)
    .default([]),
  output: z
    .record(z.string(), z.unknown(), { error: 'give the output as an object of names and templates' })
    .default({}),
  external: z
    .object({
      url: z.url({ protocol: /^https?$/, error: 'give the http(s) address Switchyard delivers runs to' }),
      // What its run token may act on (core/agents/run-scope.ts): ids or account names.
      integrations: z
        .array(z.string().min(1, 'give an integration id or account name'), {
          error: 'list the integrations (ids or account names) the agent acts on',
        })
        .max(50, 'at most 50 integrations')
        .default([]),
    })
    .optional(),
  ...ModelAgentFields,
})

export type AgentDefinition = z.output<typeof AgentInput>
export type StepDefinition = z.output<typeof Step>

/** Checks that the zod shape cannot express: unique names, templates that parse, the kind's own fields. */
export function definitionProblems(def: AgentDefinition): FieldError[] {
  const errors: FieldError[] = []
  duplicates(def.inputs.map((i) => i.name)).forEach((i) =>
    errors.push({ field: `inputs[${i}].name`, message: 'another input has this name' }),
  )
  duplicates(def.steps.map((s) => s.key)).forEach((i) =>
    errors.push({ field: `steps[${i}].key`, message: 'another step has this key' }),
  )
  if (def.kind === 'steps') {
    if (def.steps.length === 0)
      errors.push({ field: 'steps', message: 'add at least one step, or make the agent external' })
    def.steps.forEach((step, i) => {
      checkTemplates(step.input, `steps[${i}].input`, errors)
      if (step.condition?.trim()) {
        const bad = checkExpression(step.condition, `steps[${i}].condition`)
        if (bad) errors.push(bad)
      }
    })
    checkTemplates(def.output, 'output', errors)
  } else if (def.kind === 'model') {
    modelProblems(def, errors)
  } else {
    if (!def.external)
      errors.push({ field: 'external.url', message: 'give the http(s) address Switchyard delivers runs to' })
    if (def.steps.length > 0)
      errors.push({
        field: 'steps',
        message: 'an external agent has no steps: it calls tool steps itself with its run token',
      })
  }
  return errors
}

/** A model agent's own fields; its `output` is a JSON Schema, not templates. */
function modelProblems(def: AgentDefinition, errors: FieldError[]): void {
  if (!def.instructions?.trim()) errors.push({ field: 'instructions', message: 'tell the model what to do' })
  else checkTemplates({ instructions: def.instructions }, '', errors)
  if (!def.model) errors.push({ field: 'model', message: 'choose a model connection and a model name' })
  if (def.steps.length > 0)
    errors.push({ field: 'steps', message: 'a model agent has tools, not steps: list them under tools' })
  if (def.external) errors.push({ field: 'external', message: 'only an external agent has an address' })
  const names = def.tools.map(toolNameOf)
  names.forEach((name, i) => {
    if (!TOOL_NAME.test(name))
      errors.push({ field: `tools[${i}].name`, message: 'give the tool a name of letters, digits, _ or -' })
  })
  duplicates(names).forEach((i) =>
    errors.push({
      field: `tools[${i}].name`,
      message: `another tool is called ${names[i]}; give this one a name`,
    }),
  )
  if (names.includes(ESCALATE_TOOL))
    errors.push({
      field: 'tools',
      message: `${ESCALATE_TOOL} is the model's way to hand the run to a person`,
    })
}

/** The tool every model agent has: the run ends `escalated`, with the model's reason. */
export const ESCALATE_TOOL = 'escalate_to_person'

function duplicates(names: string[]): number[] {
  const seen = new Set<string>()
  return names.flatMap((name, i) => (seen.has(name) ? [i] : (seen.add(name), [])))
}

/** Checks started inputs against the agent's input variables: required ones present, types right. */
export function inputProblems(
  variables: AgentDefinition['inputs'],
  inputs: Record<string, unknown>,
  prefix = 'inputs',
): FieldError[] {
  const errors: FieldError[] = []
  const known = new Set(variables.map((v) => v.name))
  for (const name of Object.keys(inputs)) {
    if (!known.has(name))
      errors.push({
        field: `${prefix}.${name}`,
        message: `the agent has no input named ${name}${known.size ? `; its inputs are ${[...known].join(', ')}` : ''}`,
      })
  }
  for (const variable of variables) {
    const value = inputs[variable.name]
    if (value === undefined || value === null) {
      if (variable.required) errors.push({ field: `${prefix}.${variable.name}`, message: 'is required' })
      continue
    }
    if (typeOf(value) !== variable.type)
      errors.push({
        field: `${prefix}.${variable.name}`,
        message: `must be ${article(variable.type)} ${variable.type}, not ${article(typeOf(value))} ${typeOf(value)}`,
      })
  }
  return errors
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array'
  return typeof value === 'object' ? 'object' : typeof value
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a')
