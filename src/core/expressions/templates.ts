import { AppError, type FieldError } from '../errors.ts'
import { inlineSafe } from './inline-safe.ts'
import { renderInWorker } from './isolation.ts'
import { firstTries, heldBack, inputSize } from './stopped-templates.ts'
import {
  compileExpression,
  isTemplate,
  messageOf,
  partsOf,
  renderBatch,
  type Item,
  type Outcome,
} from './render.js'

/**
 * One expression language for agent step inputs, conditions, output mappings and trigger mappings:
 * JSONata (docs/agents.md, "Templates"), never `eval`. A template is text with `{{ expression }}`
 * parts; a template that is exactly one part keeps the expression's type (a number stays a number).
 * Plain paths are evaluated here (inline-safe.ts); every other template in a worker with a hard stop
 * and a memory limit (isolation.ts), so no template can hold the service or exhaust its memory.
 * What a template builds is capped (`maxChars`), so a run never stores a runaway result.
 */
export { isTemplate }

/** The most a rendered value may hold, in characters of its JSON (docs/agents.md, "Templates"). */
export const MAX_TEMPLATE_CHARS = 1024 * 1024
/** A step's input may carry attachments (Zendesk takes 10 MB of files, about 14 MB in base64). */
export const MAX_STEP_INPUT_CHARS = 16 * 1024 * 1024

/** Checks every template in a value (strings at any depth) and names the field of each bad one. */
export function checkTemplates(value: unknown, field: string, errors: FieldError[] = []): FieldError[] {
  eachTemplate(value, field, (template, at) => {
    try {
      partsOf(template)
    } catch (err) {
      errors.push({ field: at, message: messageOf(err) })
    }
  })
  return errors
}

/** Checks a bare expression (a condition) and names its field. */
export function checkExpression(source: string, field: string): FieldError | null {
  try {
    compileExpression(stripBraces(source))
    return null
  } catch (err) {
    return { field, message: messageOf(err) }
  }
}

/** A failure while evaluating: the step or mapping fails with it, naming where. */
export class TemplateError extends AppError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('invalid_input', `${field}: ${message}`, { errors: [{ field, message }] })
  }
}

/**
 * How a value's templates are rendered: `maxChars` bounds what they build; `owner` is whose they are
 * (a user id), so that a template stopped at a limit fails at once for a while afterwards, for that
 * owner only (stopped-templates.ts).
 */
export interface RenderOptions {
  maxChars?: number
  owner?: string
}

/**
 * Each template of the batch rendered: one stopped recently fails without running, the rest in this
 * thread when every one is inline-safe, else in a worker, after the first try of the same owner's
 * same template has ended (stopped-templates.ts).
 */
async function renderItems(
  items: Item[],
  scope: unknown,
  maxChars: number,
  owner: string,
): Promise<Outcome[]> {
  const forWorker = items.filter((item) => !inlineSafe(item.template)).map((item) => item.template)
  const endTries = forWorker.length ? await firstTries(owner, forWorker) : () => {}
  try {
    return await renderOrHoldBack(items, scope, maxChars, owner)
  } finally {
    endTries()
  }
}

async function renderOrHoldBack(
  items: Item[],
  scope: unknown,
  maxChars: number,
  owner: string,
): Promise<Outcome[]> {
  let scopeChars: number | undefined
  const sizeOfScope = () => (scopeChars ??= inputSize(scope))
  const outcomes: Array<Outcome | undefined> = items.map((item) => {
    const why = heldBack(owner, item.template, sizeOfScope)
    return why === undefined ? undefined : { ok: false, message: why }
  })
  const rest = items.filter((_, i) => outcomes[i] === undefined)
  if (rest.length) {
    const batch = { items: rest, scope, maxChars }
    const rendered = rest.every((item) => inlineSafe(item.template))
      ? await renderBatch(batch)
      : await renderInWorker(batch, owner)
    let next = 0
    outcomes.forEach((o, i) => {
      if (o === undefined) outcomes[i] = rendered[next++]
    })
  }
  return outcomes as Outcome[]
}

/**
 * Renders every template in a value, each field on its own; the errors name the fields. Object keys
 * whose value renders to undefined are left out.
 */
export async function renderFields(
  value: unknown,
  scope: Record<string, unknown>,
  field: string,
  { maxChars = MAX_TEMPLATE_CHARS, owner = '' }: RenderOptions = {},
): Promise<{ value: unknown; errors: FieldError[] }> {
  const items: Item[] = []
  eachTemplate(value, field, (template, at) => items.push({ template, field: at }))
  const outcomes = await renderItems(items, scope, maxChars, owner)
  const rendered = new Map<string, unknown>()
  const errors: FieldError[] = []
  outcomes.forEach((outcome, i) => {
    if (outcome.ok) rendered.set(items[i].field, outcome.value)
    else errors.push({ field: items[i].field, message: outcome.message })
  })
  return { value: assemble(value, field, rendered), errors }
}

/** Renders every template in a value; the first failure throws, naming its field. */
export async function renderValue(
  value: unknown,
  scope: Record<string, unknown>,
  field: string,
  options: RenderOptions = {},
): Promise<unknown> {
  const { value: rendered, errors } = await renderFields(value, scope, field, options)
  if (errors.length) throw new TemplateError(errors[0].field, errors[0].message)
  return rendered
}

/** A condition is a bare expression (braces allowed); JSONata's truthiness decides, and an empty result is false. */
export async function evaluateCondition(
  source: string,
  scope: Record<string, unknown>,
  field: string,
  options: RenderOptions = {},
): Promise<boolean> {
  return jsonataBoolean(await renderValue(`{{ ${stripBraces(source)} }}`, scope, field, options))
}

/** Calls `visit` on every template string in a value (strings at any depth) with its field. */
function eachTemplate(value: unknown, field: string, visit: (template: string, field: string) => void) {
  if (typeof value === 'string') {
    if (isTemplate(value)) visit(value, field)
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => eachTemplate(item, `${field}[${i}]`, visit))
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) eachTemplate(item, `${field}.${key}`, visit)
  }
}

/** A value with its templates replaced by their results (by field); keys rendering to undefined are left out. */
function assemble(value: unknown, field: string, rendered: Map<string, unknown>): unknown {
  if (typeof value === 'string') return isTemplate(value) ? rendered.get(field) : value
  if (Array.isArray(value)) return value.map((item, i) => assemble(item, `${field}[${i}]`, rendered))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      const result = assemble(item, `${field}.${key}`, rendered)
      if (result !== undefined) out[key] = result
    }
    return out
  }
  return value
}

function stripBraces(source: string): string {
  const trimmed = source.trim()
  return trimmed.startsWith('{{') && trimmed.endsWith('}}') ? trimmed.slice(2, -2).trim() : trimmed
}

/** JSONata's `$boolean` rules: empty strings, zero, empty arrays and objects are false. */
function jsonataBoolean(value: unknown): boolean {
  if (value === undefined || value === null) return false
  if (Array.isArray(value)) return value.some(jsonataBoolean)
  if (typeof value === 'object') return Object.keys(value).length > 0
  return Boolean(value)
}
