import type { AgentDefinition } from '../agents/definition.ts'
import { inputProblems } from '../agents/definition.ts'
import type { FieldError } from '../errors.ts'
import { checkTemplates, renderFields } from '../expressions/templates.ts'
import type { TriggerEvent } from './define.ts'
import { exampleTemplate, type Schema } from './event-fields.ts'
import { eventPathProblems } from './event-paths.ts'

export type Mapping = Record<string, string>

/**
 * A mapping names agent inputs, its templates parse, and (given the trigger's event schema) every
 * path it reads from the event is one the event has (checked when it is saved).
 */
export function mappingProblems(
  mapping: Mapping,
  variables: AgentDefinition['inputs'],
  event?: Schema,
): FieldError[] {
  const names = new Set(variables.map((v) => v.name))
  const errors: FieldError[] = []
  for (const [name, template] of Object.entries(mapping)) {
    if (!names.has(name))
      errors.push({
        field: `mapping.${name}`,
        message: `the agent has no input named ${name}${names.size ? `; its inputs are ${[...names].join(', ')}` : ''}`,
      })
    if (typeof template !== 'string')
      errors.push({ field: `mapping.${name}`, message: 'give a template, for example {{ card.name }}' })
  }
  if (errors.length) return errors
  const syntax = checkTemplates(mapping, 'mapping')
  return syntax.length || !event ? syntax : eventPathProblems(mapping, event)
}

/**
 * The agent's required inputs the mapping leaves unmapped: an active subscription with one would fail
 * every event with mapping_failed while its health looked green (issue 22, §5), so activation waits.
 */
export function unmappedRequired(
  mapping: Mapping,
  variables: AgentDefinition['inputs'],
  event: Schema,
): FieldError[] {
  return variables
    .filter((v) => v.required && !(typeof mapping[v.name] === 'string' && mapping[v.name].trim()))
    .map((v) => ({
      field: `mapping.${v.name}`,
      message: `the agent's input ${v.name} is required and has no mapping: map it to a field of the event, for example ${exampleTemplate(event, v.name)}, before activating`,
    }))
}

/**
 * An event's fields mapped to the agent's inputs: each template is evaluated with the normalised
 * event as its root (`{{ card.name }}`), and the result is checked against the input variables.
 */
export async function mapEvent(
  mapping: Mapping,
  event: TriggerEvent,
  variables: AgentDefinition['inputs'],
  owner: string,
): Promise<{ inputs: Record<string, unknown>; errors: FieldError[] }> {
  // One batch for the whole mapping: plain paths render here, anything else in one worker task.
  const { value, errors } = await renderFields(mapping, event, 'mapping', { owner })
  const inputs = value as Record<string, unknown>
  errors.push(...inputProblems(variables, inputs, 'inputs'))
  return { inputs, errors }
}

/** mapEvent for an event that starts a run: the inputs, and why the run fails at once when they fall short. */
export async function runInputs(
  mapping: Mapping,
  event: TriggerEvent,
  variables: AgentDefinition['inputs'],
  owner: string,
): Promise<{ inputs: Record<string, unknown>; mappingError?: string }> {
  const { inputs, errors } = await mapEvent(mapping, event, variables, owner)
  if (errors.length === 0) return { inputs }
  return {
    inputs,
    mappingError: `the trigger's mapping did not give the agent's inputs: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
  }
}
