import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { AppError, invalidInput } from '../../core/errors.ts'
import { problemBody, toAppError } from '../problem.ts'

/** Where a tool error's problem detail sits for programs (the text carries the same JSON for models). */
export const PROBLEM_META = 'dev.switchyard/problem'

export function successResult(output: unknown): CallToolResult {
  // Every step's output schema is an object, which is what structuredContent must be. The text is the
  // same JSON without indentation: a model reads it as well in fewer tokens, and the answer, which
  // carries the output twice, is a quarter smaller to write and send (bench/mcp.ts).
  return {
    content: [{ type: 'text', text: JSON.stringify(output) }],
    structuredContent: output as Record<string, unknown>,
  }
}

/**
 * A failure as a tool result, never a protocol error: the model reads the problem detail REST gives
 * (code, message, the fields, troubleshooting rules, retry_after) and can act on it. There is no
 * structuredContent: it would have to match the step's output schema.
 */
export function errorResult(err: unknown, extra: Record<string, unknown> = {}): CallToolResult {
  const problem = { ...problemBody(asToolArguments(toAppError(err))), ...extra }
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(problem) }],
    _meta: { [PROBLEM_META]: problem },
  }
}

/**
 * The executor names a step's input fields as REST sends them (`input.subject`); over MCP they are
 * the tool's own arguments (`subject`), so errors name them that way.
 */
function asToolArguments(err: AppError): AppError {
  const errors = err.extras.errors
  if (err.code !== 'invalid_input' || !errors?.some((e) => e.field.startsWith('input.'))) return err
  const renamed = errors.map((e) => ({ ...e, field: e.field.replace(/^input\./, '') }))
  const message = err.message === invalidInput(errors).message ? invalidInput(renamed).message : err.message
  return new AppError('invalid_input', message, { ...err.extras, errors: renamed })
}
