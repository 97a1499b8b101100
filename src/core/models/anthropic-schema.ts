import { Ajv2020 } from 'ajv/dist/2020.js'

/**
 * What Anthropic's Messages API refuses in a tool's `input_schema` (docs/model-agents.md, "Tool
 * schemas"). Such a schema fails every call of the agent with a 400, so saving names the tool and
 * the place in its schema instead. The facts, from ../shared/reference/model-agents.md and the
 * Anthropic sandbox (src/sandboxes/anthropic/messages-request.ts, which refuses the same):
 * `input_schema` is an object and its `type` is `"object"`. Where the reference is silent, the
 * rules below are the plausible ones, each said where it is checked.
 */
export interface SchemaProblem {
  /** Where in the schema, as `input_schema.properties.status.type`. */
  path: string
  message: string
}

// The meta-schema check only: formats are the provider's business, and unknown keywords are
// annotations JSON Schema allows.
const ajv = new Ajv2020({ strict: false, validateFormats: false })

export function anthropicSchemaProblems(schema: unknown): SchemaProblem[] {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema))
    return [
      {
        path: 'input_schema',
        message: 'must be a JSON object (Anthropic: "Input should be a valid dictionary")',
      },
    ]
  const s = schema as Record<string, unknown>
  const problems: SchemaProblem[] = []
  if (s.type !== 'object')
    problems.push({
      path: 'input_schema.type',
      message: `must be "object", not ${JSON.stringify(s.type ?? null)} (Anthropic: "Input should be 'object'")`,
    })
  // Chosen rule (the reference is silent): Anthropic documents the input as an object of named
  // fields, and a top-level union gives the model no single set of fields to fill; its API is
  // widely reported to refuse oneOf, allOf and anyOf at the top of input_schema.
  for (const keyword of ['oneOf', 'allOf', 'anyOf'])
    if (keyword in s)
      problems.push({
        path: `input_schema.${keyword}`,
        message: `Anthropic refuses ${keyword} at the top level of input_schema; put the choice inside a property`,
      })
  // Chosen rule (the reference is silent): the schema must be valid JSON Schema draft 2020-12,
  // the draft Anthropic names for tool schemas. Checked against the draft's meta-schema.
  if (!ajv.validateSchema(s)) {
    // The meta-schema's own unions add an error per branch at the same place: the first says it.
    const seen = new Set<string>()
    for (const e of ajv.errors ?? []) {
      const path = `input_schema${pathOf(e.instancePath)}`
      if (seen.has(path)) continue
      seen.add(path)
      const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues
      problems.push({
        path,
        message: `is not valid JSON Schema draft 2020-12: it ${e.message ?? 'breaks the meta-schema'}${allowed ? ` (${allowed.join(', ')})` : ''}`,
      })
    }
  }
  return problems
}

/** `/properties/status/type` → `.properties.status.type`; array indexes as `[0]`. */
function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
}
