import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { z } from 'zod'

export type OutputCheckResult = { success: true; data: unknown } | { success: false; message: string }

// Formats are left to the patterns Zod writes next to them; see `hasFormatWithoutPattern`.
const ajv = new Ajv2020({ strict: false, validateFormats: false })

/**
 * Checks a tool step's output against its declared schema. Zod is the reference: it strips keys an
 * object does not declare, fills defaults and says what is wrong. It also copies every value, and on
 * Get Ticket Info that copy was the largest share of Switchyard's own CPU per call.
 *
 * So an output first meets a validator compiled from the same schema as JSON Schema, one that allows
 * no undeclared key. An output it accepts is one Zod would return unchanged, so it is returned as it
 * is, uncopied. Anything else goes to Zod, exactly as before. Schemas the fast validator cannot judge
 * the way Zod does are left to Zod alone: transforms (their output is Zod's to compute) and formats
 * without a pattern.
 */
export function outputCheck(schema: z.ZodType): (output: unknown) => OutputCheckResult {
  const reference = (output: unknown): OutputCheckResult => {
    const checked = schema.safeParse(output)
    return checked.success ? { success: true, data: checked.data } : { success: false, message: checked.error.issues[0]?.message ?? '' }
  }
  let fast: ValidateFunction | null | undefined // compiled on first use: most steps never run in a process
  return (output) => {
    if (fast === undefined) fast = compileFast(schema)
    return fast?.(output) ? { success: true, data: output } : reference(output)
  }
}

function compileFast(schema: z.ZodType): ValidateFunction | null {
  try {
    const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'throw' }) as Record<string, unknown>
    if (hasFormatWithoutPattern(json)) return null
    delete json.$schema
    return ajv.compile(json)
  } catch {
    return null
  }
}

function hasFormatWithoutPattern(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasFormatWithoutPattern)
  if (node === null || typeof node !== 'object') return false
  const record = node as Record<string, unknown>
  if (typeof record.format === 'string' && typeof record.pattern !== 'string') return true
  return Object.values(record).some(hasFormatWithoutPattern)
}
