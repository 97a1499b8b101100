import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shapeLike, VendorSpec } from './openapi-contract.ts'

// The contract checker must be able to fail: each kind of breach below is caught and named.
let dir: string

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vendor-oas-'))
  fs.mkdirSync(path.join(dir, 'split'))
  fs.writeFileSync(path.join(dir, 'split', 'a.yml'), `
openapi: 3.1.0
paths:
  /things/{id}:
    get:
      responses:
        '200':
          description: ok
          headers:
            Location: { schema: { type: string } }
          content:
            application/json:
              schema: { $ref: '#/components/schemas/ThingResponse' }
    delete:
      responses:
        '204': { description: gone }
components:
  schemas:
    ThingResponse:
      type: object
      properties:
        thing: { $ref: '#/components/schemas/Thing' }
        owner: { $ref: '#/components/schemas/OwnerObject' }
`)
  fs.writeFileSync(path.join(dir, 'split', 'b.yml'), `
openapi: 3.1.0
paths: {}
components:
  schemas:
    Thing:
      type: object
      required: [id, name]
      properties:
        id: { type: integer }
        name: { type: string, nullable: true }
        created_at: { type: string, format: datetime }
        kind: { type: string, enum: [a, b], nullable: true }
`)
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('VendorSpec', () => {
  const ok = { thing: { id: 1, name: null, created_at: '2024-01-01T10:00:00Z', kind: null }, owner: {} }
  const check = (status: number, body: unknown, headers = new Headers({ location: '/things/1' })) => {
    const spec = new VendorSpec(path.join(dir, 'split'))
    return spec.check(spec.operation('GET', '/things/{id}')!, status, body, headers)
  }

  it('resolves $refs across the files of a split document and accepts a conforming answer', () => {
    expect(check(200, ok)).toEqual({ errors: [], absent: ['OwnerObject'] })
  })

  it.each([
    ['a missing required field', { thing: { name: 'x' } }, /thing must have required property 'id'/],
    ['a wrong type', { thing: { id: '1', name: 'x' } }, /thing\/id must be integer/],
    ['null where the schema is not nullable', { thing: { id: null, name: 'x' } }, /thing\/id must be integer/],
    ['a value outside the enum', { thing: { id: 1, name: 'x', kind: 'c' } }, /thing\/kind must be equal to one of the allowed values/],
    ['a malformed date-time (vendor format "datetime")', { thing: { id: 1, name: 'x', created_at: 'yesterday' } }, /created_at must match format "date-time"/],
    ['a non-object where only the kind is known', { thing: { id: 1, name: 'x' }, owner: 'me' }, /owner must be object/],
  ])('names %s', (_what, body, message) => {
    const { errors } = check(200, body)
    expect(errors.join('\n')).toMatch(message)
  })

  it('refuses an undocumented status, a missing documented header and a body where none is documented', () => {
    expect(check(201, ok).errors).toEqual(['GET /things/{id} → 201: status not documented (documented: 200)'])
    expect(check(200, ok, new Headers()).errors).toEqual(['GET /things/{id} → 200: documented header Location is missing'])
    const spec = new VendorSpec(path.join(dir, 'split'))
    expect(spec.check(spec.operation('DELETE', '/things/{id}')!, 204, { deleted: true }).errors[0]).toMatch(/documented without a body/)
    expect(spec.check(spec.operation('DELETE', '/things/{id}')!, 204, undefined).errors).toEqual([])
  })

  it('refuses a split document whose files disagree', () => {
    fs.writeFileSync(path.join(dir, 'split', 'c.yml'), 'openapi: 3.1.0\npaths: {}\ncomponents:\n  schemas:\n    Thing: { type: string }\n')
    try {
      expect(() => new VendorSpec(path.join(dir, 'split'))).toThrow(/schema Thing differs from an earlier file's/)
    } finally {
      fs.rmSync(path.join(dir, 'split', 'c.yml'))
    }
  })
})

describe('shapeLike', () => {
  const example = { id: 1, subject: 'Printer', priority: 'high', tags: ['a'], via: { channel: 'web' } }

  it('accepts the example\'s fields with its types, or null for an unset one', () => {
    expect(shapeLike({ id: 2, subject: 'x', priority: null, tags: [], via: { channel: 'api' }, extra: 1 }, example, 't')).toEqual([])
  })

  it('names a field left out and a field of another type', () => {
    expect(shapeLike({ id: '2', subject: 'x', tags: {}, via: {} }, example, 't')).toEqual([
      't.id: string where the vendor example has number',
      't.priority: missing (the vendor example has "high")',
      't.tags: object where the vendor example has array',
    ])
  })
})
