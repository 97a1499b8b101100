import type { ToolChoice, ToolDefinition } from '../model-kit/conversation.ts'
import { isRecord } from '../model-kit/refusal.ts'
import { invalidValue, missing, refuse, wrongType } from './errors.ts'
import { strictSchemaProblem } from './strict-schema.ts'

/** What Chat Completions and Responses requests share: tool names, tool choice, output formats. */

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

export function toolName(raw: unknown, param: string): string {
  if (raw === undefined) return missing(param)
  if (typeof raw !== 'string') return wrongType(param, 'a string', raw)
  if (!TOOL_NAME.test(raw))
    refuse(
      `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      param,
      'invalid_value',
    )
  return raw
}

/** `none|auto|required`, or `{type: 'function', name}` naming an offered tool. */
export function parseToolChoice(raw: unknown, tools: ToolDefinition[], param: string): ToolChoice {
  if (raw === undefined || raw === null) return 'auto'
  if (typeof raw === 'string') {
    if (raw === 'none' || raw === 'auto' || raw === 'required') return raw
    return invalidValue(param, raw, ['none', 'auto', 'required'])
  }
  if (!isRecord(raw)) return wrongType(param, 'a string or object', raw)
  if (raw.type === 'allowed_tools') return 'auto'
  if (raw.type !== 'function') return invalidValue(`${param}.type`, raw.type, ['function'])
  if (typeof raw.name !== 'string') return missing(`${param}.function.name`)
  if (tools.length === 0)
    refuse(`Invalid value for '${param}': '${param}' is only allowed when 'tools' are specified.`, param)
  if (!tools.some((t) => t.name === raw.name))
    refuse(`Tool choice '${raw.name}' not found in 'tools' parameter.`, param)
  return { name: raw.name }
}

/**
 * A `json_schema` output format (`{name, schema, strict}`): its schema, checked against strict
 * mode when `strict` is true.
 */
export function parseOutputFormat(raw: unknown, param: string): Record<string, unknown> {
  if (!isRecord(raw)) return missing(`${param}.json_schema`)
  const name = typeof raw.name === 'string' ? raw.name : missing(`${param}.json_schema.name`)
  const schema = isRecord(raw.schema) ? raw.schema : { type: 'object', properties: {} }
  if (raw.strict === true) {
    const problem = strictSchemaProblem(schema)
    if (problem)
      refuse(`Invalid schema for response_format '${name}': ${problem}`, param, 'invalid_json_schema')
  }
  return schema
}
