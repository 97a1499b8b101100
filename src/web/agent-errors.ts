// Puts the field errors of a 400 answer to an agent definition (`steps[0].input.subject`,
// `inputs.1.name`, `output.summary`) next to the editor's fields; what has no place is listed with
// the form's problem, so nothing is lost.
import type { FieldError } from './api.ts'

/** `steps[0].input.subject` and `steps.0.input.subject` alike → `steps.0.input.subject`. */
export function normalizePath(path: string): string {
  return path
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/\[["']?([^\]"']*)["']?\]/g, '.$1')
    .replace(/^\//, '')
    .replace(/\//g, '.')
    .replace(/^\.+/, '')
}

/** What the editor shows: the steps' input field names (form mode only) and the output rows' names. */
export interface EditorShape {
  kind: 'steps' | 'external' | 'model'
  inputCount: number
  /** A model agent's tools (rows of the tool list); 0 for other kinds. */
  toolCount?: number
  /** Per step: the input fields shown as a form, or null when the input is edited as JSON. */
  stepFields: ReadonlyArray<readonly string[] | null>
  outputNames: readonly string[]
}

const VARIABLE_PARTS = new Set(['name', 'type', 'required', 'description'])
const STEP_PARTS = new Set(['key', 'tool', 'integration', 'condition', 'on_failure'])
const TOOL_PARTS = new Set(['tool', 'integration', 'name', 'require_approval', 'strict'])
const MODEL_PARTS = new Set(['connection', 'name'])
const BUDGET_PARTS = new Set([
  'model_calls',
  'tool_calls',
  'tokens',
  'cost_usd',
  'wall_clock_s',
  'tool_errors',
])

export interface RoutedErrors {
  /** Place (as the editor names it) → messages. */
  at: Record<string, string[]>
  other: FieldError[]
}

/**
 * The place in the editor for each error. Places: `name`, `description`, `url`, `inputs`,
 * `inputs.N` (the row), `inputs.N.<part>`, `steps`, `steps.N` (the card), `steps.N.<part>`,
 * `steps.N.input` (the input as a whole, or its JSON box), `steps.N.input.<field>`, `output`,
 * `output.<name>`; a model agent's `instructions`, `model`, `model.connection`, `model.name`,
 * `tools`, `tools.N`, `tools.N.<part>` (`tools.N.strict` holds what a provider's rules refuse),
 * `output` (its JSON Schema), `budget` and `budget.<field>`.
 */
export function routeAgentErrors(
  errors: readonly FieldError[] | undefined,
  shape: EditorShape,
): RoutedErrors {
  const at: Record<string, string[]> = {}
  const other: FieldError[] = []
  const put = (place: string, message: string) => (at[place] ??= []).push(message)
  for (const e of errors ?? []) {
    const place = placeOf(normalizePath(e.field), shape)
    if (place) put(place.place, place.prefix ? `${place.prefix}: ${e.message}` : e.message)
    else other.push(e)
  }
  return { at, other }
}

function placeOf(path: string, shape: EditorShape): { place: string; prefix?: string } | null {
  const seg = path.split('.')
  switch (seg[0]) {
    case 'name':
    case 'description':
      return seg.length === 1 ? { place: seg[0] } : null
    case 'kind':
      return { place: 'kind' }
    case 'external':
      return shape.kind === 'external' ? { place: 'url' } : null
    case 'inputs': {
      const i = Number(seg[1])
      if (seg.length === 1 || !Number.isInteger(i) || i >= shape.inputCount)
        return { place: 'inputs', prefix: seg.slice(1).join('.') || undefined }
      if (seg.length >= 3 && VARIABLE_PARTS.has(seg[2])) return { place: `inputs.${i}.${seg[2]}` }
      return { place: `inputs.${i}` }
    }
    case 'steps': {
      if (shape.kind !== 'steps') return null
      const i = Number(seg[1])
      if (seg.length === 1 || !Number.isInteger(i) || i >= shape.stepFields.length)
        return { place: 'steps', prefix: seg.slice(1).join('.') || undefined }
      if (seg.length === 2) return { place: `steps.${i}` }
      if (STEP_PARTS.has(seg[2])) return { place: `steps.${i}.${seg[2]}` }
      if (seg[2] === 'input') {
        const fields = shape.stepFields[i]
        const field = seg[3]
        if (field && fields?.includes(field)) return { place: `steps.${i}.input.${field}` }
        return { place: `steps.${i}.input`, prefix: seg.slice(3).join('.') || undefined }
      }
      return { place: `steps.${i}`, prefix: seg.slice(2).join('.') }
    }
    case 'instructions':
      return shape.kind === 'model'
        ? { place: 'instructions', prefix: seg.slice(1).join('.') || undefined }
        : null
    case 'model':
      if (shape.kind !== 'model') return null
      return seg.length === 2 && MODEL_PARTS.has(seg[1]) ? { place: `model.${seg[1]}` } : { place: 'model' }
    case 'tools': {
      if (shape.kind !== 'model') return null
      const i = Number(seg[1])
      if (seg.length === 1 || !Number.isInteger(i) || i >= (shape.toolCount ?? 0))
        return { place: 'tools', prefix: seg.slice(1).join('.') || undefined }
      if (seg.length === 2) return { place: `tools.${i}` }
      if (TOOL_PARTS.has(seg[2]))
        return { place: `tools.${i}.${seg[2]}`, prefix: seg.slice(3).join('.') || undefined }
      return { place: `tools.${i}`, prefix: seg.slice(2).join('.') }
    }
    case 'budget':
      if (shape.kind !== 'model') return null
      return seg.length === 2 && BUDGET_PARTS.has(seg[1])
        ? { place: `budget.${seg[1]}` }
        : { place: 'budget', prefix: seg.slice(1).join('.') || undefined }
    case 'output': {
      if (shape.kind === 'model') return { place: 'output', prefix: seg.slice(1).join('.') || undefined }
      if (shape.kind !== 'steps') return null
      const name = seg.slice(1).join('.')
      if (name && shape.outputNames.includes(name)) return { place: `output.${name}` }
      return { place: 'output', prefix: name || undefined }
    }
    default:
      return null
  }
}

/** The messages for places under `prefix.` (e.g. a step's), keyed by what follows it. */
export function errorsUnder(at: Record<string, string[]>, prefix: string): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  const p = `${prefix}.`
  for (const [place, messages] of Object.entries(at))
    if (place.startsWith(p)) out[place.slice(p.length)] = messages
  return out
}
