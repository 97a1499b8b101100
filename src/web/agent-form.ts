// The agent editor's form state and its conversion to and from an agent definition (AgentInput),
// free of React so it can be unit tested; pages/AgentEditorPage.tsx renders it.
import type { Agent, AgentInput, AgentStep, InputVariable, OnFailure, VariableType } from './agents-api.ts'
import type { JsonSchema } from './schema-form.ts'
import type { FieldKind, FormField } from './schema-form.ts'
import type { Tool } from './api.ts'

import { rowId } from './row-id.ts'
import { emptyModelForm, modelFormOf, modelInputOf, type ModelForm } from './model-agent-form.ts'

export { rowId }

export interface VariableRow {
  id: string
  name: string
  type: VariableType
  required: boolean
  description: string
}

export interface StepRow {
  id: string
  key: string
  tool: string
  integration: string
  /** `form`: one text box per schema field; `json`: the whole input as JSON text. */
  inputMode: 'form' | 'json'
  /** Field name → the text typed (a value or a `{{ }}` template). */
  fields: Record<string, string>
  json: string
  condition: string
  on_failure: OnFailure
}

export interface OutputRow {
  id: string
  name: string
  template: string
}

export interface AgentForm {
  name: string
  description: string
  kind: 'steps' | 'external' | 'model'
  inputs: VariableRow[]
  steps: StepRow[]
  output: OutputRow[]
  url: string
  /** A model agent's instructions, model, tools, output schema and budget. */
  model: ModelForm
}

export const emptyVariable = (): VariableRow => ({
  id: rowId(),
  name: '',
  type: 'string',
  required: true,
  description: '',
})
export const emptyStep = (key = ''): StepRow => ({
  id: rowId(),
  key,
  tool: '',
  integration: '',
  inputMode: 'form',
  fields: {},
  json: '{}',
  condition: '',
  on_failure: 'stop',
})
export const emptyOutput = (): OutputRow => ({ id: rowId(), name: '', template: '' })

export function emptyAgentForm(): AgentForm {
  return {
    name: '',
    description: '',
    kind: 'steps',
    inputs: [],
    steps: [],
    output: [],
    url: '',
    model: emptyModelForm(),
  }
}

/** A free step key: `step1`, `step2`, … (keys are identifiers the templates name). */
export function nextStepKey(steps: readonly StepRow[]): string {
  const taken = new Set(steps.map((s) => s.key))
  let n = steps.length + 1
  while (taken.has(`step${n}`)) n++
  return `step${n}`
}

export const hasTemplate = (text: string) => text.includes('{{')

/** An output's template as the form edits it: the API keeps any JSON value, most often a string. */
export const templateText = (template: unknown): string =>
  typeof template === 'string' ? template : JSON.stringify(template)

const NUMBER_RE = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/

/**
 * The value a field's text stands for. Text fields keep the text; a template is always sent as
 * text (the server evaluates it and keeps a lone expression's type); other kinds read numbers, lists
 * and JSON, and text that is none of them goes as typed, for the server's validation to name.
 */
export function valueOfText(kind: FieldKind, text: string): { value?: unknown; error?: string } {
  const trimmed = text.trim()
  if (trimmed === '') return {}
  if (kind === 'text' || kind === 'textarea' || hasTemplate(text))
    return { value: kind === 'text' || kind === 'textarea' ? text : trimmed }
  switch (kind) {
    case 'integer':
    case 'number':
    case 'text-or-number':
      return { value: NUMBER_RE.test(trimmed) ? Number(trimmed) : trimmed }
    case 'string-list':
      return {
        value: trimmed
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      }
    case 'boolean':
      return { value: trimmed === 'true' ? true : trimmed === 'false' ? false : trimmed }
    case 'enum':
      try {
        return { value: JSON.parse(trimmed) }
      } catch {
        return { value: trimmed }
      }
    case 'json':
      try {
        return { value: JSON.parse(trimmed) }
      } catch {
        return { error: 'Not valid JSON. Enter JSON, or a {{ }} template.' }
      }
  }
}

/** The text a field shows for a stored value (the inverse of valueOfText). */
export function textOfValue(kind: FieldKind, value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (kind === 'string-list' && Array.isArray(value) && value.every((v) => typeof v === 'string'))
    return value.join(', ')
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value)
}

/** A step's input from its form fields (or its JSON text), with the fields that cannot be read. */
export function stepInputOf(
  step: StepRow,
  fields: readonly FormField[] | undefined,
): { input: Record<string, unknown>; errors: Record<string, string> } {
  const errors: Record<string, string> = {}
  if (step.inputMode === 'json' || !fields) {
    const text = step.inputMode === 'json' ? step.json : JSON.stringify(step.fields)
    try {
      const parsed: unknown = text.trim() === '' ? {} : JSON.parse(text)
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return { input: {}, errors: { '': 'The input must be a JSON object, { … }.' } }
      return { input: parsed as Record<string, unknown>, errors }
    } catch (err) {
      return {
        input: {},
        errors: { '': `Not valid JSON: ${err instanceof Error ? err.message : String(err)}` },
      }
    }
  }
  const input: Record<string, unknown> = {}
  for (const f of fields) {
    const { value, error } = valueOfText(f.kind, step.fields[f.name] ?? '')
    if (error) errors[f.name] = error
    else if (value !== undefined) input[f.name] = value
  }
  return { input, errors }
}

/** Form fields' text for a stored input; null when the input holds keys the form has no field for (it opens as JSON then). */
export function fieldsOfInput(
  input: Record<string, unknown>,
  fields: readonly FormField[],
): Record<string, string> | null {
  const known = new Map(fields.map((f) => [f.name, f]))
  if (Object.keys(input).some((k) => !known.has(k))) return null
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(input)) out[name] = textOfValue(known.get(name)!.kind, value)
  return out
}

/** Switches a step between its field form and JSON text, carrying what was typed across. */
export function withInputMode(
  step: StepRow,
  mode: 'form' | 'json',
  fields: readonly FormField[] | undefined,
): { step: StepRow; error?: string } {
  if (mode === step.inputMode) return { step }
  if (mode === 'json') {
    const { input } = stepInputOf(step, fields)
    return { step: { ...step, inputMode: 'json', json: JSON.stringify(input, null, 2) } }
  }
  const { input, errors } = stepInputOf(step, fields)
  if (errors['']) return { step, error: errors[''] }
  const asFields = fields ? fieldsOfInput(input, fields) : null
  if (!asFields)
    return { step, error: 'This input has fields the form does not show; keep editing it as JSON.' }
  return { step: { ...step, inputMode: 'form', fields: asFields } }
}

export interface ConvertResult {
  input: AgentInput
  /** Problems found before sending, keyed like the server's field paths (`steps.0.input.subject`). */
  errors: Record<string, string>
}

/**
 * The definition to send. `fieldsOf` gives a tool's input fields once loaded, `toolOf` its
 * catalogue entry (a model agent's approval rules come from it).
 */
export function agentInputOf(
  form: AgentForm,
  fieldsOf: (toolId: string) => readonly FormField[] | undefined,
  toolOf: (toolId: string) => Pick<Tool, 'effect' | 'destructive'> | undefined = () => undefined,
): ConvertResult {
  const errors: Record<string, string> = {}
  const input: AgentInput = {
    name: form.name.trim(),
    inputs: form.inputs.map((v): InputVariable => {
      const variable: InputVariable = { name: v.name.trim(), type: v.type, required: v.required }
      if (v.description.trim()) variable.description = v.description.trim()
      return variable
    }),
    kind: form.kind,
  }
  if (form.description.trim()) input.description = form.description.trim()
  if (form.kind === 'external') {
    input.external = { url: form.url.trim() }
    return { input, errors }
  }
  if (form.kind === 'model') {
    const model = modelInputOf(form.model, toolOf)
    Object.assign(input, model.fields)
    return { input, errors: model.errors }
  }
  input.steps = form.steps.map((s, i): AgentStep => {
    const converted = stepInputOf(s, s.tool ? fieldsOf(s.tool) : undefined)
    for (const [field, message] of Object.entries(converted.errors))
      errors[field ? `steps.${i}.input.${field}` : `steps.${i}.input`] = message
    const step: AgentStep = {
      key: s.key.trim(),
      tool: s.tool,
      integration: s.integration,
      input: converted.input,
      on_failure: s.on_failure,
    }
    if (s.condition.trim()) step.condition = s.condition.trim()
    return step
  })
  const output = form.output.filter((o) => o.name.trim() || o.template.trim())
  if (output.length > 0) input.output = Object.fromEntries(output.map((o) => [o.name.trim(), o.template]))
  return { input, errors }
}

/** The form for a stored agent. Steps whose tool's fields are not known yet open as JSON. */
export function formOfAgent(
  agent: Agent,
  fieldsOf: (toolId: string) => readonly FormField[] | undefined,
): AgentForm {
  return {
    name: agent.name,
    description: agent.description ?? '',
    kind: agent.kind,
    inputs: agent.inputs.map((v) => ({
      id: rowId(),
      name: v.name,
      type: v.type,
      required: v.required,
      description: v.description ?? '',
    })),
    steps: (agent.steps ?? []).map((s) => {
      const fields = fieldsOf(s.tool)
      const asFields = fields ? fieldsOfInput(s.input ?? {}, fields) : null
      return {
        id: rowId(),
        key: s.key,
        tool: s.tool,
        integration: s.integration,
        inputMode: asFields ? 'form' : 'json',
        fields: asFields ?? {},
        json: JSON.stringify(s.input ?? {}, null, 2),
        condition: s.condition ?? '',
        on_failure: s.on_failure,
      }
    }),
    // A model agent's output is a JSON Schema, edited as a whole in its own box.
    output: Object.entries(agent.kind === 'model' ? {} : (agent.output ?? {})).map(([name, template]) => ({
      id: rowId(),
      name,
      template: templateText(template),
    })),
    url: agent.external?.url ?? '',
    model: agent.kind === 'model' ? modelFormOf(agent) : emptyModelForm(),
  }
}

/** Moves the item at `from` by `by` places (−1 up, +1 down); out of range leaves the list as it is. */
export function moved<T>(items: readonly T[], from: number, by: number): T[] {
  const to = from + by
  if (from < 0 || from >= items.length || to < 0 || to >= items.length) return [...items]
  const copy = [...items]
  const [item] = copy.splice(from, 1)
  copy.splice(to, 0, item)
  return copy
}

/** A JSON Schema for the agent's input variables, so a run's inputs can use the tool form (SchemaForm). */
export function schemaOfVariables(variables: readonly InputVariable[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {}
  for (const v of variables) {
    const prop: JsonSchema = { type: v.type }
    if (v.description) prop.description = v.description
    // A list of anything is typed as JSON; the form's comma list is for strings only.
    if (v.type === 'array') prop.items = {}
    properties[v.name] = prop
  }
  return { type: 'object', properties, required: variables.filter((v) => v.required).map((v) => v.name) }
}

/**
 * A tool's input fields as the step editor shows them: every field takes text, so a `{{ }}` template
 * fits anywhere. Numbers, yes/no and choices become text boxes that say what they take; lists,
 * long text and JSON keep their boxes.
 */
export function templatedFields(fields: readonly FormField[]): FormField[] {
  return fields.map((f) => {
    const note =
      f.kind === 'enum'
        ? `One of: ${(f.options ?? []).map((o) => optionText(o.value)).join(', ')}.`
        : f.kind === 'boolean'
          ? 'true or false.'
          : f.kind === 'integer' || f.kind === 'number'
            ? 'A number.'
            : undefined
    if (!note) return { ...f }
    const description = f.description ? `${f.description.replace(/\.?\s*$/, '.')} ${note}` : note
    const { options: _options, inputMode: _inputMode, ...rest } = f
    return { ...rest, kind: 'text', description }
  })
}

/** An option's value as typed (options hold JSON text): `"open"` reads open, `true` reads true. */
function optionText(json: string): string {
  try {
    const v: unknown = JSON.parse(json)
    return typeof v === 'string' ? v : JSON.stringify(v)
  } catch {
    return json
  }
}
