import type { FastifyInstance } from 'fastify'
import { invalidInput, type FieldError } from '../core/errors.ts'
import { escapeUnstorable, isStorableText } from '../core/store/storable-text.ts'

/**
 * PostgreSQL refuses the NUL character (0x00) in text and JSON, and a lone UTF-16 surrogate (\ud800)
 * in JSON, so either one reaching a query would answer 500 (core/store/storable-text.ts). No field of
 * ours has a use for them: one guard refuses them in every path parameter, query parameter and JSON
 * body (names and values) before any route runs, naming where it was (docs/errors.md).
 */
export function registerNulGuard(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    const errors: FieldError[] = []
    for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
      if (hasNul(name) || hasNul(value)) errors.push(nulIn(name))
    }
    findNul(request.query, 'query', errors)
    // A raw body (the webhook intake keeps the bytes its signature covers) is not JSON yet: the
    // route that parses it answers for what it holds.
    if (!Buffer.isBuffer(request.body)) findNul(request.body, '', errors)
    if (errors.length) throw invalidInput(errors)
  })
}

const hasNul = (value: unknown) => typeof value === 'string' && !isStorableText(value)
const WHAT = 'the NUL character (\\u0000) or a lone UTF-16 surrogate (such as \\ud800)'
const nulIn = (field: string): FieldError => ({
  field: printable(field),
  message: `must not contain ${WHAT}`,
})

/** Walks a parsed JSON value without recursion (a 2 MB body can nest deeper than the call stack). */
function findNul(root: unknown, rootName: string, errors: FieldError[]) {
  const pending: Array<[unknown, string]> = [[root, rootName]]
  while (pending.length) {
    const [value, where] = pending.pop()!
    if (typeof value === 'string') {
      if (hasNul(value)) errors.push(nulIn(where || 'body'))
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => pending.push([item, `${where}[${i}]`]))
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const field = where ? `${where}.${key}` : key
        if (hasNul(key))
          errors.push({
            field: printable(field),
            message: `a field name must not contain ${WHAT}`,
          })
        else pending.push([item, field])
      }
    }
  }
}

/** A field name with NUL or a lone surrogate in it, shown escaped so the answer stays plain text. */
const printable = escapeUnstorable
