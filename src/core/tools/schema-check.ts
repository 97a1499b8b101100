import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { z } from 'zod'
import { declaredFields, parseDeclaredOrThrow } from '../validation.ts'

export type OutputCheckResult = { success: true; data: unknown } | { success: false; message: string }

// Formats are left to the patterns Zod writes next to them; see `hasFormatWithoutPattern`.
const ajv = new Ajv2020({ strict: false, validateFormats: false })

/**
 * Zod is the reference for a tool step's input and output: it strips keys an object does not
 * declare, fills defaults, coerces and says what is wrong. It also copies every value, and for the
 * bench's step (a ticket with all its comments) that copy was the largest share of Switchyard's own
 * CPU per call.
 *
 * So a value first meets a validator compiled from the same schema as JSON Schema, one that allows
 * no undeclared key and requires every defaulted field. A value it accepts is one Zod would return
 * unchanged, so it is used as it is, uncopied. Anything else goes to Zod, exactly as before. Schemas
 * the fast validator cannot judge the way Zod does are left to Zod alone: transforms (their output is
 * Zod's to compute), checks JSON Schema cannot carry (refinements, trimming) and formats without a
 * pattern.
 */
function unchangedByZod(schema: z.ZodType): (value: unknown) => boolean {
  let fast: ValidateFunction | null | undefined // compiled on first use: most steps never run in a process
  return (value) => {
    if (fast === undefined) fast = compileFast(schema)
    return fast?.(value) === true
  }
}

/** Checks what a step returned against its declared output. */
export function outputCheck(schema: z.ZodType): (output: unknown) => OutputCheckResult {
  const unchanged = unchangedByZod(schema)
  return (output) => {
    if (unchanged(output)) return { success: true, data: output }
    const checked = schema.safeParse(output)
    return checked.success
      ? { success: true, data: checked.data }
      : { success: false, message: checked.error.issues[0]?.message ?? '' }
  }
}

/** Parses a step's input; a bad or undeclared field throws invalid_input naming it under `input.`. */
export function inputParser(schema: z.ZodType): (input: unknown) => unknown {
  const unchanged = unchangedByZod(schema)
  const known = declaredFields(schema)
  return (input) => (unchanged(input) ? input : parseDeclaredOrThrow(schema, input, 'input', known))
}

function compileFast(schema: z.ZodType): ValidateFunction | null {
  try {
    let unwritten = false
    const json = z.toJSONSchema(schema, {
      io: 'output',
      unrepresentable: 'throw',
      override: ({ zodSchema }) => {
        unwritten ||= hasUnwrittenCheck(zodSchema)
      },
    }) as Record<string, unknown>
    if (unwritten || hasFormatWithoutPattern(json)) return null
    delete json.$schema
    return ajv.compile(json)
  } catch {
    return null
  }
}

/**
 * The kinds of Zod check that toJSONSchema writes down (as a bound, a length or a pattern). Others it
 * leaves out silently: `refine` and `superRefine` ("custom"), and `trim` or `toLowerCase`
 * ("overwrite"), which change the value. A kind not listed here keeps its schema on Zod alone.
 */
const WRITTEN_CHECKS = new Set([
  'less_than',
  'greater_than',
  'multiple_of',
  'number_format',
  'bigint_format',
  'max_size',
  'min_size',
  'size_equals',
  'max_length',
  'min_length',
  'length_equals',
  'string_format',
])

function hasUnwrittenCheck(schema: unknown): boolean {
  const checks =
    (schema as { _zod?: { def?: { checks?: Array<{ _zod?: { def?: { check?: string } } }> } } })._zod?.def
      ?.checks ?? []
  return checks.some((check) => !WRITTEN_CHECKS.has(check._zod?.def?.check ?? ''))
}

function hasFormatWithoutPattern(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasFormatWithoutPattern)
  if (node === null || typeof node !== 'object') return false
  const record = node as Record<string, unknown>
  if (typeof record.format === 'string' && typeof record.pattern !== 'string') return true
  return Object.values(record).some(hasFormatWithoutPattern)
}
