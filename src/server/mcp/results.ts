import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { AppError, invalidInput } from '../../core/errors.ts'
import { problemBody, toAppError } from '../problem.ts'

/** Where a tool error's problem detail sits for programs (the text carries the same JSON for models). */
export const PROBLEM_META = 'dev.switchyard/problem'

export function successResult(output: unknown): CallToolResult {
  // Every step's output schema is an object, which is what structuredContent must be. The text is the
  // same JSON without indentation: a model reads it as well in fewer tokens, and the answer, which
  // carries the output twice, is a quarter smaller to write and send (bench/mcp.ts). Both stay: the
  // MCP spec asks a tool with structured content to give the same JSON as text too, for clients that
  // only read `content` (docs/mcp.md).
  const text = JSON.stringify(output)
  const result = {
    content: [{ type: 'text' as const, text }],
    structuredContent: output as Record<string, unknown>,
  }
  outputJson.set(result, text)
  return result
}

/** A success result's output as its text already holds it, so the answer need not serialize it again. */
const outputJson = new WeakMap<object, string>()

/**
 * A JSON-RPC answer as JSON.stringify writes it, byte for byte. An answer carrying a success result
 * untouched since successResult is written around the output's JSON, made once for its text:
 * serializing the answer whole would walk the output a second time, the largest part of
 * serializing it (bench/mcp.ts).
 */
export function answerJson(answer: JSONRPCMessage): string {
  const result = 'result' in answer ? (answer.result as CallToolResult) : undefined
  const text = result && outputJson.get(result)
  if (text === undefined || !asBuilt(answer, result!, text)) return JSON.stringify(answer)
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}},"jsonrpc":"2.0","id":${JSON.stringify((answer as { id: unknown }).id)}}`
}

/** Keys and values as successResult and the SDK's Protocol (`{result, jsonrpc, id}`) made them. */
function asBuilt(answer: JSONRPCMessage, result: CallToolResult, text: string): boolean {
  const [part] = result.content
  return (
    sameKeys(answer, ['result', 'jsonrpc', 'id']) &&
    answer.jsonrpc === '2.0' &&
    sameKeys(result, ['content', 'structuredContent']) &&
    result.content.length === 1 &&
    sameKeys(part, ['type', 'text']) &&
    part.type === 'text' &&
    part.text === text
  )
}

function sameKeys(value: object, keys: string[]): boolean {
  const own = Object.keys(value)
  return own.length === keys.length && own.every((key, i) => key === keys[i])
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
