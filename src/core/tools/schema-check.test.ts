import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AppError } from '../errors.ts'
import { inputParser, outputCheck } from './schema-check.ts'

const Person = z.object({ id: z.number().int(), name: z.string(), email: z.string().nullable() })
const Ticket = z.looseObject({
  id: z.number().int(),
  status: z.enum(['new', 'open']),
  updated_at: z.iso.datetime({ offset: true }),
  requester: Person.nullable(),
  tags: z.array(z.string()),
})

const ticket = () => ({
  id: 7,
  status: 'open',
  updated_at: '2026-11-22T06:53:31Z',
  requester: { id: 1, name: 'Ada', email: null },
  tags: ['vip'],
  via: { channel: 'api' }, // undeclared, but the ticket is a loose object: kept
})

describe('outputCheck', () => {
  const check = outputCheck(Ticket)

  it('returns a conforming output as it is, without copying it', () => {
    const output = ticket()
    const checked = check(output)
    expect(checked).toEqual({ success: true, data: output })
    expect(checked.success && checked.data).toBe(output)
  })

  it('gives what Zod gives when an output needs changing: undeclared keys of a strict object are dropped', () => {
    const output = { ...ticket(), requester: { id: 1, name: 'Ada', email: null, password_hint: 'x' } }
    const checked = check(output)
    expect(checked).toEqual({ success: true, data: Ticket.parse(output) })
    expect(checked.success && (checked.data as any).requester).toEqual({ id: 1, name: 'Ada', email: null })
  })

  const wrongShapes: Array<[string, unknown]> = [
    ['a missing field', { ...ticket(), tags: undefined }],
    ['a value outside an enum', { ...ticket(), status: 'frozen' }],
    ['a date that is not ISO 8601', { ...ticket(), updated_at: 'yesterday' }],
    ['a fractional id', { ...ticket(), id: 7.5 }],
    ['a string where an object belongs', { ...ticket(), requester: 'Ada' }],
    ['no object at all', null],
  ]
  it.each(wrongShapes)("refuses %s with Zod's message", (_name, output) => {
    const checked = check(output)
    const reference = Ticket.safeParse(output)
    expect(reference.success).toBe(false)
    expect(checked).toEqual({ success: false, message: reference.error!.issues[0].message })
  })

  it('leaves schemas with transforms to Zod, which computes their output', () => {
    const upper = outputCheck(z.object({ name: z.string().transform((s) => s.toUpperCase()) }))
    expect(upper({ name: 'ada' })).toEqual({ success: true, data: { name: 'ADA' } })
  })

  it('leaves formats Zod gives no pattern for to Zod', () => {
    const url = outputCheck(z.object({ link: z.url() }))
    expect(url({ link: 'not a url' }).success).toBe(false)
    expect(url({ link: 'https://example.com/' })).toEqual({
      success: true,
      data: { link: 'https://example.com/' },
    })
  })

  it('leaves refinements to Zod: JSON Schema cannot carry their code', () => {
    const even = outputCheck(z.object({ n: z.number().refine((n) => n % 2 === 0, 'must be even') }))
    expect(even({ n: 3 })).toEqual({ success: false, message: 'must be even' })
    expect(even({ n: 4 })).toEqual({ success: true, data: { n: 4 } })
  })
})

describe('inputParser', () => {
  const Input = z.object({
    ticket_id: z.number().int().positive(),
    note: z.string().optional(),
    public: z.boolean().default(false),
  })
  const parse = inputParser(Input)

  it('returns a conforming input as it is, without copying it', () => {
    const input = { ticket_id: 7, public: true }
    expect(parse(input)).toBe(input)
  })

  it('gives what Zod gives when the input needs changing: defaults filled', () => {
    expect(parse({ ticket_id: 7 })).toEqual({ ticket_id: 7, public: false })
  })

  const bad: Array<[string, unknown, string]> = [
    ['a negative id', { ticket_id: -1 }, 'input.ticket_id'],
    ['a string id', { ticket_id: '7' }, 'input.ticket_id'],
    ['a wrong type deeper in', { ticket_id: 7, note: 5 }, 'input.note'],
    ['no object at all', 'seven', 'input'],
    ['an undeclared field, which Zod would drop', { ticket_id: 7, public: true, extra: 1 }, 'input.extra'],
  ]
  it.each(bad)('refuses %s with invalid_input naming %s', (_name, input, field) => {
    let thrown: unknown
    try {
      parse(input)
    } catch (err) {
      thrown = err
    }
    expect(thrown).toBeInstanceOf(AppError)
    expect((thrown as AppError).extras.errors?.map((e) => e.field)).toContain(field)
  })

  it('trims where the schema says so, though JSON Schema cannot say it', () => {
    expect(inputParser(z.object({ name: z.string().trim().min(1) }))({ name: '  Ada ' })).toEqual({
      name: 'Ada',
    })
  })

  it('runs refinements on inputs the fast validator would accept', () => {
    const strict = inputParser(
      z.object({ a: z.string() }).superRefine((v, ctx) => {
        if (v.a === 'forbidden') ctx.addIssue({ code: 'custom', path: ['a'], message: 'is forbidden' })
      }),
    )
    expect(() => strict({ a: 'forbidden' })).toThrow(AppError)
    expect(strict({ a: 'fine' })).toEqual({ a: 'fine' })
  })
})
