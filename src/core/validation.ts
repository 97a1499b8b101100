import { z } from 'zod'
import { invalidInput, type FieldError } from './errors.ts'
import { humanIssue } from './human-issues.ts'

/** Every input is parsed with the one error map that writes Zod's issues as sentences for people. */
export function safeParseForPeople<S extends z.ZodType>(schema: S, value: unknown) {
  return schema.safeParse(value, { error: humanIssue })
}

/** Parses with a zod schema; failures become one invalid_input error naming every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, fieldPrefix = ''): z.output<S> {
  const result = safeParseForPeople(schema, value)
  if (result.success) return result.data
  throw invalidInput(fieldErrors(result.error, fieldPrefix))
}

export function fieldErrors(error: z.ZodError, fieldPrefix = ''): FieldError[] {
  // An unknown-keys issue names several fields at once: report each where it is.
  const issues: Array<{ path: PropertyKey[]; message: string }> = error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...issue.path, key], message: 'is not a known field' }))
      : [issue],
  )
  return issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    const joined = path.reduce((acc, p) => (p.startsWith('[') ? acc + p : acc ? `${acc}.${p}` : p), '')
    const field = [fieldPrefix, joined].filter(Boolean).join('.') || fieldPrefix || '(root)'
    return { field, message: issue.message }
  })
}

/**
 * Parses a declaration's input (a step's input, a trigger's configuration) under `prefix`, refusing
 * and naming every field it does not declare, besides every bad one. Zod would drop an undeclared
 * field, and a mistyped one (`priorty` for `priority`, `desc` for `description`) would lose its
 * change while the call succeeded. A schema declared loose (z.looseObject) takes any field; a strict
 * one already says so itself.
 */
export function parseDeclaredOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  prefix: string,
  known = declaredFields(schema),
): z.output<S> {
  const unknown = known ? undeclaredFields(value, known, prefix) : []
  if (!unknown.length) return parseOrThrow(schema, value, prefix)
  const parsed = safeParseForPeople(schema, value)
  throw invalidInput([...unknown, ...(parsed.success ? [] : fieldErrors(parsed.error, prefix))])
}

/** The JSON Schema of a declaration's input, saying what parseDeclaredOrThrow enforces: no undeclared field. */
export function declaredInputSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  return declaredFields(schema) ? { ...json, additionalProperties: false } : json
}

/** The fields of a plain object schema: the ones an input may have. */
export function declaredFields(schema: z.ZodType): string[] | undefined {
  return schema instanceof z.ZodObject && schema.def.catchall === undefined
    ? Object.keys(schema.shape)
    : undefined
}

/** A field error for each key of `value` that is not in `known`. */
export function undeclaredFields(value: unknown, known: string[], prefix: string): FieldError[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return []
  const message = `is not a known field; ${known.length ? `the fields are ${known.join(', ')}` : 'there are none'}`
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) => ({ field: `${prefix}.${key}`, message }))
}
