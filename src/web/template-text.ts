// Building `{{ }}` templates for people: the fields an event (or a step) offers, the expression that
// names one, and inserting it where the cursor is. Templates are JSONata (docs/agents.md, "Templates").
import { resolveSchema, type JsonSchema } from './schema-form.ts'

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** A JSONata path for the segments: names that are not identifiers are quoted with backticks. */
export function expressionOf(path: readonly string[]): string {
  return path.map((s) => (IDENTIFIER.test(s) ? s : `\`${s.replace(/`/g, '')}\``)).join('.')
}

export const templateOf = (path: readonly string[]) => `{{ ${expressionOf(path)} }}`

/** The text with `snippet` in place of the selection; `caret` is where the cursor goes after it. */
export function insertAt(
  text: string,
  start: number | null | undefined,
  end: number | null | undefined,
  snippet: string,
): { text: string; caret: number } {
  const from = clamp(start ?? text.length, 0, text.length)
  const to = clamp(end ?? from, from, text.length)
  return { text: text.slice(0, from) + snippet + text.slice(to), caret: from + snippet.length }
}

const clamp = (n: number, lo: number, hi: number) => Math.min(Math.max(n, lo), hi)

export interface EventField {
  path: string[]
  /** The field's name in words or its key. */
  label: string
  type: string
  description?: string
  /** The sample's value, shortened, so a person sees what the field holds. */
  example?: string
  children: EventField[]
}

const MAX_DEPTH = 4
const EXAMPLE_LENGTH = 60

function typeOf(schema: JsonSchema, sample: unknown): string {
  const t = schema.type
  if (typeof t === 'string') return t
  if (Array.isArray(t)) return t.filter((x) => x !== 'null').join(' or ') || 'null'
  if (Array.isArray(sample)) return 'array'
  if (sample === null || sample === undefined) return 'any'
  return typeof sample
}

function exampleOf(value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (isRecord(value) || Array.isArray(value)) return undefined
  const text = typeof value === 'string' ? `“${value}”` : String(value)
  return text.length > EXAMPLE_LENGTH ? `${text.slice(0, EXAMPLE_LENGTH - 1)}…` : text
}

/** Strips `null` from a union and follows `$ref`s, so `string | null` reads as a string. */
function normal(schema: unknown, root: JsonSchema): JsonSchema {
  const s = resolveSchema(schema, root)
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alts = s[key]
    if (!Array.isArray(alts)) continue
    const members = alts.map((a) => resolveSchema(a, root)).filter((a) => a.type !== 'null')
    if (members.length === 1)
      return { ...members[0], ...(typeof s.description === 'string' ? { description: s.description } : {}) }
  }
  return s
}

/**
 * The fields of an event, as a tree: from the event's JSON Schema where it names properties, else
 * from the sample. Arrays of objects list their items' fields (JSONata maps over arrays, so
 * `labels.name` is every label's name).
 */
export function eventFields(schema: unknown, sample: unknown): EventField[] {
  const root = isRecord(schema) ? schema : {}
  return fieldsOf(root, sample, [], root, 0)
}

function fieldsOf(
  schema: unknown,
  sample: unknown,
  path: string[],
  root: JsonSchema,
  depth: number,
): EventField[] {
  if (depth >= MAX_DEPTH) return []
  let s = normal(schema, root)
  let value = sample
  if (s.type === 'array' || (!s.type && Array.isArray(sample))) {
    s = normal(s.items, root)
    value = Array.isArray(sample) ? sample[0] : undefined
  }
  const props = isRecord(s.properties) ? s.properties : null
  const names = props ? Object.keys(props) : isRecord(value) ? Object.keys(value) : []
  return names.map((name) => {
    const child = props ? normal(props[name], root) : {}
    const childValue = isRecord(value) ? value[name] : undefined
    const childPath = [...path, name]
    const field: EventField = {
      path: childPath,
      label: name,
      type: typeOf(child, childValue),
      children: fieldsOf(child, childValue, childPath, root, depth + 1),
    }
    if (typeof child.description === 'string' && child.description.trim())
      field.description = child.description
    const example = exampleOf(childValue)
    if (example !== undefined) field.example = example
    return field
  })
}

/** Every field of the tree, depth first, with its depth (for a flat, indented list). */
export function flattenFields(
  fields: readonly EventField[],
  depth = 0,
): Array<{ field: EventField; depth: number }> {
  return fields.flatMap((f) => [{ field: f, depth }, ...flattenFields(f.children, depth + 1)])
}

export interface InsertChoice {
  /** What the button says: the path without braces. */
  label: string
  template: string
}

const MAX_OUTPUT_FIELDS = 8

/**
 * What a step's input may name: the run's input variables, then each earlier step's output (as a
 * whole, and its first top-level fields from the tool's output schema).
 */
export function insertChoices(
  variables: readonly string[],
  earlierSteps: ReadonlyArray<{ key: string; outputSchema?: unknown }>,
): InsertChoice[] {
  const choices: InsertChoice[] = variables
    .filter(Boolean)
    .map((name) => ({ label: expressionOf(['inputs', name]), template: templateOf(['inputs', name]) }))
  for (const step of earlierSteps) {
    if (!step.key) continue
    const base = ['steps', step.key, 'output']
    choices.push({ label: expressionOf(base), template: templateOf(base) })
    for (const field of eventFields(step.outputSchema, undefined).slice(0, MAX_OUTPUT_FIELDS)) {
      choices.push({
        label: expressionOf([...base, ...field.path]),
        template: templateOf([...base, ...field.path]),
      })
    }
  }
  return choices
}
