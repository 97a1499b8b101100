import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { AppError } from './errors.ts'
import { declaredInputSchema, parseDeclaredOrThrow, parseOrThrow } from './validation.ts'

describe('field errors', () => {
  it('names nested and array fields', () => {
    const schema = z.object({ a: z.object({ b: z.array(z.number()) }) })
    try {
      parseOrThrow(schema, { a: { b: [1, 'x'] } }, 'input')
      expect.unreachable()
    } catch (err) {
      expect((err as AppError).extras.errors).toEqual([
        { field: 'input.a.b[1]', message: expect.any(String) },
      ])
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

describe('a declaration refuses fields it does not declare', () => {
  const Step = z.object({ subject: z.string(), priority: z.enum(['low', 'high']).optional() })
  const errorsOf = (schema: z.ZodType, value: unknown) => {
    try {
      return parseDeclaredOrThrow(schema, value, 'input')
    } catch (err) {
      return (err as AppError).extras.errors
    }
  }
  const unknown = (field: string) => ({
    field: `input.${field}`,
    message: 'is not a known field; the fields are subject, priority',
  })

  it.each<[string, z.ZodType, unknown, unknown]>([
    ['a declared input', Step, { subject: 's', priority: 'high' }, { subject: 's', priority: 'high' }],
    ['a mistyped field', Step, { subject: 's', priorty: 'high' }, [unknown('priorty')]],
    [
      'a mistyped field beside a bad one',
      Step,
      { subject: 7, Priority: 'high' },
      [unknown('Priority'), { field: 'input.subject', message: expect.any(String) }],
    ],
    [
      'a prototype-looking key',
      Step,
      JSON.parse('{"subject":"s","constructor":1}'),
      [unknown('constructor')],
    ],
    ['no input at all', Step, null, [{ field: 'input', message: expect.any(String) }]],
    ['an array', Step, [{ subject: 's' }], [{ field: 'input', message: expect.any(String) }]],
    [
      'any field of a loose declaration',
      z.looseObject({ subject: z.string() }),
      { subject: 's', extra: 1 },
      { subject: 's', extra: 1 },
    ],
    [
      'a declaration with no fields',
      z.object({}),
      { board: 'b' },
      [{ field: 'input.board', message: 'is not a known field; there are none' }],
    ],
  ])('%s', (_label, schema, value, expected) => {
    expect(errorsOf(schema, value)).toEqual(expected)
  })

  it('says so in its JSON Schema, unless it is loose', () => {
    expect(declaredInputSchema(Step)).toMatchObject({ type: 'object', additionalProperties: false })
    expect(declaredInputSchema(z.looseObject({ a: z.string() })).additionalProperties).not.toBe(false)
  })
})

describe('zod issues written for people', () => {
  const messageOf = (schema: z.ZodType, value: unknown) => {
    try {
      parseOrThrow(schema, value, 'input')
    } catch (err) {
      return (err as AppError).extras.errors
    }
    throw new Error('accepted')
  }

  it.each<[string, z.ZodType, unknown, string, string]>([
    ['a missing field', z.object({ name: z.string() }), {}, 'input.name', 'is required'],
    [
      'an empty required text',
      z.object({ name: z.string().min(1) }),
      { name: '' },
      'input.name',
      'is required',
    ],
    [
      'text too short',
      z.object({ code: z.string().min(3) }),
      { code: 'ab' },
      'input.code',
      'must be at least 3 characters',
    ],
    [
      'text too long',
      z.object({ code: z.string().max(2) }),
      { code: 'abc' },
      'input.code',
      'must be at most 2 characters',
    ],
    [
      'an exact length',
      z.object({ code: z.string().length(4) }),
      { code: 'abc' },
      'input.code',
      'must be exactly 4 characters',
    ],
    [
      'a choice',
      z.object({ method: z.enum(['GET', 'POST', 'PUT', 'DELETE']) }),
      { method: 'get' },
      'input.method',
      'must be one of GET, POST, PUT or DELETE',
    ],
    ['a literal', z.object({ kind: z.literal('card') }), { kind: 'list' }, 'input.kind', 'must be card'],
    [
      'a list where a record belongs',
      z.object({ query: z.record(z.string(), z.string()) }),
      { query: ['a'] },
      'input.query',
      'must be an object of names to values, not a list',
    ],
    [
      'a list where an object belongs',
      z.object({ ticket: z.object({ id: z.number() }) }),
      { ticket: [] },
      'input.ticket',
      'must be an object, not a list',
    ],
    [
      'text where a list belongs',
      z.object({ tags: z.array(z.string()) }),
      { tags: 'a,b' },
      'input.tags',
      'must be a list',
    ],
    [
      'an empty list',
      z.object({ tags: z.array(z.string()).min(1) }),
      { tags: [] },
      'input.tags',
      'must have at least one item',
    ],
    [
      'too many items',
      z.object({ tags: z.array(z.string()).max(2) }),
      { tags: ['a', 'b', 'c'] },
      'input.tags',
      'must have at most 2 items',
    ],
    ['a fraction', z.object({ n: z.number().int() }), { n: 1.5 }, 'input.n', 'must be a whole number'],
    ['a number below', z.object({ n: z.number().positive() }), { n: 0 }, 'input.n', 'must be more than 0'],
    ['text where a number belongs', z.object({ n: z.number() }), { n: '7' }, 'input.n', 'must be a number'],
    ['a flag', z.object({ on: z.boolean() }), { on: 'yes' }, 'input.on', 'must be true or false'],
    ['an email', z.object({ to: z.string().email() }), { to: 'ada' }, 'input.to', 'must be an email address'],
    [
      'a date-time',
      z.object({ at: z.string().datetime() }),
      { at: 'tomorrow' },
      'input.at',
      'must be an ISO 8601 date and time, such as 2026-01-31T09:00:00Z',
    ],
    ['a multiple', z.object({ n: z.number().multipleOf(5) }), { n: 7 }, 'input.n', 'must be a multiple of 5'],
    [
      'an unknown kind',
      z.object({
        auth: z.discriminatedUnion('method', [
          z.object({ method: z.literal('a') }),
          z.object({ method: z.literal('b') }),
        ]),
      }),
      { auth: { method: 'c' } },
      'input.auth.method',
      'must be one of a or b',
    ],
    [
      'a custom message wins',
      z.object({ id: z.string().regex(/^\d+$/, 'must be a ticket id') }),
      { id: 'x' },
      'input.id',
      'must be a ticket id',
    ],
    [
      'a custom type message wins',
      z.object({ id: z.number({ error: 'must be a ticket id (a positive integer)' }) }),
      { id: 'x' },
      'input.id',
      'must be a ticket id (a positive integer)',
    ],
  ])('%s', (_, schema, value, field, message) => {
    expect(messageOf(schema, value)).toEqual([{ field, message }])
  })

  it("never shows zod's own wording", () => {
    const schema = z.object({
      a: z.string().min(1),
      b: z.enum(['x', 'y']),
      c: z.record(z.string(), z.string()),
    })
    const errors = messageOf(schema, { a: '', b: 'z', c: [] })!
    for (const e of errors) expect(e.message).not.toMatch(/expected|received|Too small|Invalid option/i)
  })
})
