import type { z } from 'zod'
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
  const issues: Array<{ path: PropertyKey[]; message: string }> = error.issues.flatMap((issue) => issue.code === 'unrecognized_keys'
    ? issue.keys.map((key) => ({ path: [...issue.path, key], message: 'is not a known field' }))
    : [issue])
  return issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    const joined = path.reduce((acc, p) => (p.startsWith('[') ? acc + p : acc ? `${acc}.${p}` : p), '')
    const field = [fieldPrefix, joined].filter(Boolean).join('.') || fieldPrefix || '(root)'
    return { field, message: issue.message }
  })
}
