import type { FieldError } from '../errors.ts'

/**
 * OpenAI's strict mode for function tools (docs/model-agents.md, "Tool schemas"): every object
 * lists all its properties in `required` and sets `additionalProperties: false`, and a few keywords
 * are not supported. A schema that breaks a rule is refused by the provider with a 400 on every
 * call; saving names the field instead (the model sandbox refuses the same, src/sandboxes/openai).
 */
const UNSUPPORTED = [
  'patternProperties',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'if',
  'then',
  'else',
  'not',
  'dependentRequired',
  'dependentSchemas',
]

export function strictModeProblems(schema: unknown, field: string): FieldError[] {
  const errors: FieldError[] = []
  walk(schema, '', errors, field)
  return errors
}

function walk(node: unknown, path: string, errors: FieldError[], field: string): void {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return
  const s = node as Record<string, unknown>
  const where = path || 'the input'
  for (const keyword of UNSUPPORTED)
    if (keyword in s)
      errors.push({ field, message: `${where} uses ${keyword}, which OpenAI's strict mode does not support` })
  const isObject =
    s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object')) || 'properties' in s
  if (isObject) {
    const properties = (s.properties ?? {}) as Record<string, unknown>
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : [])
    for (const name of Object.keys(properties))
      if (!required.has(name))
        errors.push({
          field,
          message: `${path ? `${path}.` : ''}${name} is optional; OpenAI's strict mode requires every property in required (make it required and nullable)`,
        })
    if (s.additionalProperties !== false)
      errors.push({
        field,
        message: `${where} must set additionalProperties to false for OpenAI's strict mode`,
      })
    for (const [name, child] of Object.entries(properties))
      walk(child, path ? `${path}.${name}` : name, errors, field)
  }
  if (s.items) walk(s.items, `${path}[]`, errors, field)
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(s[key])) (s[key] as unknown[]).forEach((child) => walk(child, path, errors, field))
  for (const defs of ['$defs', 'definitions'])
    if (s[defs] && typeof s[defs] === 'object')
      for (const [name, child] of Object.entries(s[defs] as Record<string, unknown>))
        walk(child, `${defs}.${name}`, errors, field)
}
