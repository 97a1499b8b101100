import jsonata from 'jsonata'
import { AppError, type FieldError } from '../errors.ts'

/**
 * One expression language for agent step inputs, conditions, output mappings and trigger mappings:
 * JSONata (docs/agents.md, "Templates"), never `eval`. A template is text with `{{ expression }}`
 * parts; a template that is exactly one part keeps the expression's type (a number stays a number).
 * JSONata's own guardrails bound every evaluation, so a user's recursive function cannot hang a run.
 */
const GUARDRAILS = { timeout: 1_000, stack: 200, sequence: 100_000 }
const MAX_CACHED = 2_000

type Part = { text: string } | { expr: jsonata.Expression; source: string }

const compiled = new Map<string, Part[]>()

/** Compiles (or takes from the cache) a template; throws a message naming the bad part. */
function partsOf(template: string): Part[] {
  const hit = compiled.get(template)
  if (hit) return hit
  const parts = split(template)
  if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value!)
  compiled.set(template, parts)
  return parts
}

function split(template: string): Part[] {
  const parts: Part[] = []
  let rest = template
  for (let open = rest.indexOf('{{'); open >= 0; open = rest.indexOf('{{')) {
    if (open > 0) parts.push({ text: rest.slice(0, open) })
    const { expr, source, end } = firstExpression(rest, open + 2)
    parts.push({ expr, source })
    rest = rest.slice(end + 2)
  }
  if (rest) parts.push({ text: rest })
  return parts
}

/** The expression after `{{` ends at the first `}}` that closes a valid expression (an object constructor may hold `}}`). */
function firstExpression(
  text: string,
  start: number,
): { expr: jsonata.Expression; source: string; end: number } {
  let lastError = 'an expression is not closed with }}'
  for (let end = text.indexOf('}}', start); end >= 0; end = text.indexOf('}}', end + 1)) {
    const source = text.slice(start, end).trim()
    if (!source) throw new Error('{{ }} holds no expression')
    try {
      return { expr: jsonata(source, GUARDRAILS), source, end }
    } catch (err) {
      lastError = `{{ ${source} }}: ${messageOf(err)}`
    }
  }
  throw new Error(lastError)
}

function messageOf(err: unknown): string {
  const e = err as { message?: string; position?: number }
  return e.message ?? String(err)
}

export function isTemplate(value: string): boolean {
  return value.includes('{{')
}

/** Checks every template in a value (strings at any depth) and names the field of each bad one. */
export function checkTemplates(value: unknown, field: string, errors: FieldError[] = []): FieldError[] {
  if (typeof value === 'string') {
    try {
      partsOf(value)
    } catch (err) {
      errors.push({ field, message: messageOf(err) })
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => checkTemplates(item, `${field}[${i}]`, errors))
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) checkTemplates(item, `${field}.${key}`, errors)
  }
  return errors
}

/** Checks a bare expression (a condition) and names its field. */
export function checkExpression(source: string, field: string): FieldError | null {
  try {
    jsonata(stripBraces(source), GUARDRAILS)
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

async function evaluate(
  expr: jsonata.Expression,
  source: string,
  scope: Record<string, unknown>,
  field: string,
): Promise<unknown> {
  try {
    return plain(await expr.evaluate(scope))
  } catch (err) {
    throw new TemplateError(field, `{{ ${source} }}: ${messageOf(err)}`)
  }
}

/** JSONata marks its arrays and builds prototype-less objects: what leaves here is plain JSON. */
function plain(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? JSON.parse(JSON.stringify(value)) : value
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** Renders one template string; a lone `{{ expression }}` keeps its type, and a missing value is undefined. */
export async function renderString(
  template: string,
  scope: Record<string, unknown>,
  field: string,
): Promise<unknown> {
  let parts: Part[]
  try {
    parts = partsOf(template)
  } catch (err) {
    throw new TemplateError(field, messageOf(err))
  }
  if (parts.length === 1 && 'expr' in parts[0]) return evaluate(parts[0].expr, parts[0].source, scope, field)
  let out = ''
  for (const part of parts)
    out += 'text' in part ? part.text : asText(await evaluate(part.expr, part.source, scope, field))
  return out
}

/** Renders every template in a value; object keys whose value renders to undefined are left out. */
export async function renderValue(
  value: unknown,
  scope: Record<string, unknown>,
  field: string,
): Promise<unknown> {
  if (typeof value === 'string') return isTemplate(value) ? renderString(value, scope, field) : value
  if (Array.isArray(value))
    return Promise.all(value.map((item, i) => renderValue(item, scope, `${field}[${i}]`)))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      const rendered = await renderValue(item, scope, `${field}.${key}`)
      if (rendered !== undefined) out[key] = rendered
    }
    return out
  }
  return value
}

/** A condition is a bare expression (braces allowed); JSONata's truthiness decides, and an empty result is false. */
export async function evaluateCondition(
  source: string,
  scope: Record<string, unknown>,
  field: string,
): Promise<boolean> {
  const result = await renderString(`{{ ${stripBraces(source)} }}`, scope, field)
  return jsonataBoolean(result)
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
