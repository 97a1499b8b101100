import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { AppError } from './errors.ts'
import { parseOrThrow } from './validation.ts'

describe('field errors', () => {
  it('names nested and array fields', () => {
    const schema = z.object({ a: z.object({ b: z.array(z.number()) }) })
    try {
      parseOrThrow(schema, { a: { b: [1, 'x'] } }, 'input')
      expect.unreachable()
    } catch (err) {
      expect((err as AppError).extras.errors).toEqual([{ field: 'input.a.b[1]', message: expect.any(String) }])
    }
  })

  it('names each unknown field of a strict object on its own', () => {
    try {
      parseOrThrow(z.strictObject({ name: z.string() }), { name: 'x', desc: 1, colour: 2 }, 'input')
      expect.unreachable()
    } catch (err) {
      expect((err as AppError).extras.errors).toEqual([
        { field: 'input.desc', message: 'is not a known field' },
        { field: 'input.colour', message: 'is not a known field' },
      ])
    }
  })
})
