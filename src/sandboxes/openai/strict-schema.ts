/**
 * OpenAI's strict mode (structured outputs): a function's `parameters` with `strict: true`, and a
 * `json_schema` response format with `strict: true`, must keep these rules, or the API answers
 * 400 naming the first one broken (docs/sandbox.md, "Refusals"):
 *
 * - the root is an object schema (`type: "object"`), not a union;
 * - every object lists every one of its properties in `required` (optional ones are made
 *   nullable instead) and says `additionalProperties: false`;
 * - no keyword OpenAI does not support: `allOf`, `not`, `if`/`then`/`else`, `dependentRequired`,
 *   `dependentSchemas`, `patternProperties`, `unevaluatedProperties`, `propertyNames`,
 *   `minProperties`, `maxProperties`, `minLength`, `maxLength`, `unevaluatedItems`, `contains`,
 *   `minContains`, `maxContains`, `uniqueItems`;
 * - at most 10 levels of nesting.
 * The texts are OpenAI's: `In context=('properties', 'name'), 'minLength' is not permitted.`
 */

export const UNSUPPORTED_KEYWORDS = [
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
] as const

export const MAX_DEPTH = 10

type Schema = Record<string, unknown>

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Python's tuple repr, as OpenAI's messages print the context: `()`, `('a',)`, `('a', 'b')`. */
function context(path: string[]): string {
  if (path.length === 0) return '()'
  const items = path.map((p) => `'${p}'`)
  return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`
}

function isObjectSchema(schema: Schema): boolean {
  const type = schema.type
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || isObject(schema.properties)
}

function check(schema: Schema, path: string[], depth: number): string | undefined {
  if (depth > MAX_DEPTH)
    return `In context=${context(path)}, schema exceeds the maximum nesting depth of ${MAX_DEPTH}.`
  for (const keyword of UNSUPPORTED_KEYWORDS)
    if (keyword in schema) return `In context=${context(path)}, '${keyword}' is not permitted.`
  if (isObjectSchema(schema)) {
    const properties = isObject(schema.properties) ? schema.properties : {}
    const required = Array.isArray(schema.required) ? schema.required : undefined
    const missing = Object.keys(properties).filter((name) => !required?.includes(name))
    if (!required || missing.length > 0)
      return `In context=${context(path)}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing[0] ?? ''}'.`
    if (schema.additionalProperties !== false)
      return `In context=${context(path)}, 'additionalProperties' is required to be supplied and to be false.`
    for (const [name, sub] of Object.entries(properties)) {
      if (!isObject(sub)) continue
      const found = check(sub, [...path, 'properties', name], depth + 1)
      if (found) return found
    }
  }
  if (isObject(schema.items)) {
    const found = check(schema.items, [...path, 'items'], depth + 1)
    if (found) return found
  }
  for (const union of ['anyOf', 'oneOf'] as const) {
    const members = schema[union]
    if (!Array.isArray(members)) continue
    for (const [i, member] of members.entries()) {
      if (!isObject(member)) continue
      const found = check(member, [...path, union, String(i)], depth + 1)
      if (found) return found
    }
  }
  for (const defs of ['$defs', 'definitions'] as const) {
    const table = schema[defs]
    if (!isObject(table)) continue
    for (const [name, sub] of Object.entries(table)) {
      if (!isObject(sub)) continue
      const found = check(sub, [...path, defs, name], depth)
      if (found) return found
    }
  }
  return undefined
}

/** The first strict-mode rule the schema breaks, in OpenAI's words, or undefined. */
export function strictSchemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema)) return `schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`
  if (schema.type !== 'object' || 'anyOf' in schema)
    return `schema must be a JSON Schema of 'type: "object"', got 'type: "${String(schema.type ?? 'None')}"'.`
  return check(schema, [], 1)
}
