import { lookUp, type Facts } from './facts.ts'

/**
 * The default model's tool arguments (docs/sandbox.md, "The default model"): for each property
 * of the tool's schema, the fact of that name when there is one that fits its type; otherwise,
 * for a required property, its `default`, its first `enum` value, null when it may be null, or
 * a placeholder of its type (a string gets `fallbackText`, a number its `minimum` or 0, a boolean
 * false, an array [], an object its own required properties). An optional property without a fact
 * is left out.
 */

type Schema = Record<string, unknown>

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function types(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string')
  if (typeof schema.type === 'string') return [schema.type]
  if (isObject(schema.properties)) return ['object']
  if (Array.isArray(schema.anyOf)) return schema.anyOf.flatMap((s) => (isObject(s) ? types(s) : []))
  return []
}

/** A branch of `anyOf` that is not `null`, for a property given as `anyOf: [{...}, {type: null}]`. */
function mainSchema(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf)) {
    const branch = schema.anyOf.find((s) => isObject(s) && s.type !== 'null')
    if (isObject(branch)) return { ...branch, ...(types(schema).includes('null') ? { nullable: true } : {}) }
  }
  return schema
}

/** The fact made to fit the schema's type, or undefined when it cannot be without guessing. */
function fit(value: unknown, schema: Schema, facts: Facts, fallbackText: string): unknown {
  const wanted = types(schema).filter((t) => t !== 'null')
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return undefined
  if (wanted.length === 0) return value
  for (const type of wanted) {
    if (type === 'string' && typeof value === 'string') return value
    if (type === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return String(value)
    if ((type === 'number' || type === 'integer') && typeof value === 'number')
      return type === 'integer' && !Number.isInteger(value) ? undefined : value
    if (
      (type === 'number' || type === 'integer') &&
      typeof value === 'string' &&
      /^-?\d+(\.\d+)?$/.test(value)
    )
      return type === 'integer' && value.includes('.') ? undefined : Number(value)
    if (type === 'boolean' && typeof value === 'boolean') return value
    if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true'
    if (type === 'array') {
      const items = isObject(schema.items) ? schema.items : {}
      const list = Array.isArray(value) ? value : [value]
      const fitted = list.map((v) => fit(v, items, facts, fallbackText))
      if (fitted.every((v) => v !== undefined)) return fitted
    }
    if (type === 'object' && isObject(value))
      return buildArguments(schema, new Map(Object.entries(value)), fallbackText, facts)
  }
  return undefined
}

function placeholder(schema: Schema, facts: Facts, fallbackText: string): unknown {
  if (schema.default !== undefined) return schema.default
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  if (Array.isArray(schema.const)) return schema.const
  if (schema.const !== undefined) return schema.const
  const all = types(schema)
  if (all.includes('null') || schema.nullable === true) return null
  switch (all[0]) {
    case 'string':
      return fallbackText
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0
    case 'boolean':
      return false
    case 'array':
      return []
    case 'object':
      return buildArguments(schema, new Map(), fallbackText, facts)
    default:
      return fallbackText
  }
}

/**
 * The arguments object for a tool whose parameters are `schema`. `outer` facts are looked up for
 * a nested object's properties when its own value gives none.
 */
export function buildArguments(
  schema: Schema,
  facts: Facts,
  fallbackText: string,
  outer: Facts = new Map(),
): Record<string, unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const out: Record<string, unknown> = {}
  for (const [name, raw] of Object.entries(properties)) {
    if (!isObject(raw)) continue
    const property = mainSchema(raw)
    let value: unknown
    for (const source of [facts, outer]) {
      const fact = lookUp(source, name)
      if (fact.found) value = fit(fact.value, property, facts, fallbackText)
      if (value !== undefined) break
    }
    if (value === undefined && required.has(name)) value = placeholder(property, outer, fallbackText)
    if (value !== undefined) out[name] = value
  }
  return out
}
