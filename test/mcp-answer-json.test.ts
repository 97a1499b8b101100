import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { answerJson, errorResult, successResult } from '../src/server/mcp/results.ts'
import { AppError } from '../src/core/errors.ts'

// A tools/call answer is written around the output's JSON made once for its text (results.ts):
// the bytes must be JSON.stringify's, whatever the output holds.

const answer = (result: unknown, id: string | number = 7) =>
  ({ result, jsonrpc: '2.0', id }) as unknown as JSONRPCMessage

const OUTPUTS: Array<[string, unknown]> = [
  ['an empty object', {}],
  ['nested values', { a: [1, 2.5, -0, null, true], b: { c: 'd', e: [] }, f: 1e21 }],
  ['text to escape', { s: 'quote " backslash \\ newline \n tab \t nul \u0000 <div class="x">' }],
  ['other scripts and lone surrogates', { s: 'é ü 漢字 😀 \ud800 \udfff \u2028' }],
  ['values JSON leaves out', { u: undefined, f: () => 1, a: [undefined] }],
  ['a date', { at: new Date(0) }],
]

describe("a tool call's answer", () => {
  it.each(OUTPUTS)('with %s is written as JSON.stringify writes it', (_name, output) => {
    for (const id of [7, 'x"1']) {
      const message = answer(successResult(output), id)
      expect(answerJson(message)).toBe(JSON.stringify(message))
    }
  })

  it('serializes the output once, for its text', () => {
    let serialized = 0
    const output = { toJSON: () => (serialized++, { a: 1 }) }
    const json = answerJson(answer(successResult(output)))
    expect(serialized).toBe(1)
    expect(JSON.parse(json).result).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    })
  })

  it('changed after it was built, or not a success, is written whole', () => {
    const changed = successResult({ a: 1 }) as Record<string, unknown>
    changed.isError = false
    const messages = [
      answer(changed),
      answer(errorResult(new AppError('not_found', 'no such ticket'))),
      answer({ content: [{ type: 'text', text: '{}' }], structuredContent: {} }),
      { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } } as JSONRPCMessage,
    ]
    for (const message of messages) expect(answerJson(message)).toBe(JSON.stringify(message))
  })
})
