import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shapeLike, VendorSpec, type Reading } from './openapi-contract.ts'

// The contract checker must be able to fail: each kind of breach below is caught and named.
let dir: string

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vendor-oas-'))
  fs.mkdirSync(path.join(dir, 'split'))
  fs.writeFileSync(
    path.join(dir, 'split', 'a.yml'),
    `
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
`,
  )
  fs.writeFileSync(
    path.join(dir, 'split', 'b.yml'),
    `
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
`,
  )
  // Shaped like Vercel's file, generated from an SDK: overlapping unions, `nullable` beside `oneOf`
  // and `$ref`, error statuses without bodies, `allOf` parts, repeated enum values, empty unions.
  fs.writeFileSync(
    path.join(dir, 'sdk.json'),
    JSON.stringify({
      openapi: '3.0.3',
      paths: {
        '/projects/{id}': {
          get: {
            responses: {
              200: {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Project' } } },
              },
              400: { description: 'bad' },
            },
          },
          delete: { responses: { 204: { description: 'gone' } } },
        },
        '/errors': {
          get: {
            responses: {
              200: {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } },
              },
            },
          },
        },
      },
      components: {
        schemas: {
          Project: {
            type: 'object',
            required: ['id', 'target'],
            properties: {
              id: { type: 'string' },
              target: { type: 'string', enum: ['production', 'preview', 'production'], nullable: true },
              owner: {
                nullable: true,
                oneOf: [{ $ref: '#/components/schemas/ShortOwner' }, { $ref: '#/components/schemas/Owner' }],
              },
              link: { $ref: '#/components/schemas/ShortOwner', nullable: true },
              groups: { type: 'array', items: { oneOf: [] } },
            },
          },
          ShortOwner: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
          Owner: {
            type: 'object',
            required: ['id', 'name'],
            properties: {
              id: { type: 'string' },
              name: { type: 'string' },
              email: { type: 'string', format: 'email' },
            },
          },
          Failure: {
            type: 'object',
            properties: {
              error: {
                allOf: [
                  { $ref: '#/components/schemas/ShortOwner' },
                  { type: 'object', required: ['code'], properties: { code: { type: 'string' } } },
                ],
              },
            },
          },
        },
      },
    }),
  )
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('VendorSpec', () => {
  const ok = { thing: { id: 1, name: null, created_at: '2024-01-01T10:00:00Z', kind: null }, owner: {} }
  const check = (status: number, body: unknown, headers = new Headers({ location: '/things/1' })) => {
    const spec = new VendorSpec(path.join(dir, 'split'))
    return spec.check({ method: 'GET', template: '/things/{id}', status, body, headers })
  }

  it('resolves $refs across the files of a split document and accepts a conforming answer', () => {
    expect(check(200, ok)).toEqual({ errors: [], absent: ['OwnerObject'] })
  })

  it.each([
    ['a missing required field', { thing: { name: 'x' } }, /thing must have required property 'id'/],
    ['a wrong type', { thing: { id: '1', name: 'x' } }, /thing\/id must be integer/],
    [
      'null where the schema is not nullable',
      { thing: { id: null, name: 'x' } },
      /thing\/id must be integer/,
    ],
    [
      'a value outside the enum',
      { thing: { id: 1, name: 'x', kind: 'c' } },
      /thing\/kind must be equal to one of the allowed values/,
    ],
    [
      'a malformed date-time (vendor format "datetime")',
      { thing: { id: 1, name: 'x', created_at: 'yesterday' } },
      /created_at must match format "date-time"/,
    ],
    [
      'a non-object where only the kind is known',
      { thing: { id: 1, name: 'x' }, owner: 'me' },
      /owner must be object/,
    ],
  ])('names %s', (_what, body, message) => {
    const { errors } = check(200, body)
    expect(errors.join('\n')).toMatch(message)
  })

  it('refuses an undocumented status, a missing documented header and a body where none is documented', () => {
    expect(check(201, ok).errors).toEqual(['GET /things/{id} → 201: status not documented (documented: 200)'])
    expect(check(200, ok, new Headers()).errors).toEqual([
      'GET /things/{id} → 200: documented header Location is missing',
    ])
    const spec = new VendorSpec(path.join(dir, 'split'))
    expect(
      spec.check({ method: 'DELETE', template: '/things/{id}', status: 204, body: { deleted: true } })
        .errors[0],
    ).toMatch(/documented without a body/)
    expect(
      spec.check({ method: 'DELETE', template: '/things/{id}', status: 204, body: undefined }).errors,
    ).toEqual([])
    expect(spec.check({ method: 'PUT', template: '/things/{id}', status: 200, body: ok }).errors).toEqual([
      'PUT /things/{id} → 200: no such operation in the vendor file',
    ])
  })

  it('refuses a split document whose files disagree', () => {
    fs.writeFileSync(
      path.join(dir, 'split', 'c.yml'),
      'openapi: 3.1.0\npaths: {}\ncomponents:\n  schemas:\n    Thing: { type: string }\n',
    )
    try {
      expect(() => new VendorSpec(path.join(dir, 'split'))).toThrow(
        /schema Thing differs from an earlier file's/,
      )
    } finally {
      fs.rmSync(path.join(dir, 'split', 'c.yml'))
    }
  })
})

describe('VendorSpec, read as an SDK-generated file is (closed objects, oneOf as anyOf)', () => {
  const sdk: Reading = { closed: true, oneOfAsAnyOf: true, errorBodiesUndocumented: true }
  const check = (body: unknown, reading: Reading = sdk, template = '/projects/{id}') =>
    new VendorSpec(path.join(dir, 'sdk.json'), reading).check({ method: 'GET', template, status: 200, body })
      .errors
  const full = {
    id: 'p',
    target: 'production',
    owner: { id: 'u', name: 'Ada', email: 'ada@example.com' },
    link: null,
    groups: [],
  }

  it('accepts an answer that matches several overlapping members, and null beside oneOf, $ref and enum', () => {
    expect(check(full)).toEqual([])
    expect(check({ ...full, target: null, owner: null, link: { id: 'u' } })).toEqual([])
  })

  it('reads overlapping members as oneOf says only without the option', () => {
    expect(check(full, { closed: false })).toEqual([
      expect.stringMatching(/body\/owner must match exactly one schema in oneOf/),
    ])
  })

  it.each([
    [
      'a field no member declares (closed objects)',
      { ...full, owner: { id: 'u', name: 'Ada', nickname: 'A' } },
      /body\/owner must NOT have additional properties {"additionalProperty":"nickname"}/,
    ],
    [
      'a field the object does not declare',
      { ...full, extra: 1 },
      /body must NOT have additional properties {"additionalProperty":"extra"}/,
    ],
    [
      'a field of the full member with the wrong type',
      { ...full, owner: { id: 'u', name: 'Ada', email: 'not-mail' } },
      /body\/owner\/email must match format "email"/,
    ],
    [
      'a value outside an enum given with repeats',
      { ...full, target: 'staging' },
      /body\/target must be equal to one of the allowed values/,
    ],
    ['any member of an empty union', { ...full, groups: ['g'] }, /body\/groups\/0 must NOT be valid/],
    ['a missing required field', { target: null }, /body must have required property 'id'/],
  ])('names %s', (_what, body, message) => {
    expect(check(body).join('\n')).toMatch(message)
  })

  it('reports the errors of the member the answer came closest to, not of every member', () => {
    expect(check({ ...full, owner: { id: 'u', name: 'Ada', nickname: 'A' } })).toEqual([
      'GET /projects/{id} → 200: body/owner must NOT have additional properties {"additionalProperty":"nickname"}',
    ])
  })

  it('accepts a field the test tolerates, and no other', () => {
    const tolerated: Reading = { ...sdk, tolerated: { properties: { nickname: 'newer than the file' } } }
    expect(check({ ...full, owner: { id: 'u', name: 'Ada', nickname: 'A' } }, tolerated)).toEqual([])
    expect(check({ ...full, owner: { id: 'u', name: 'Ada', alias: 'A' } }, tolerated).join('\n')).toMatch(
      /additionalProperty":"alias"/,
    )
  })

  it('keeps the parts of an allOf open at their top, and objects open without the option', () => {
    expect(check({ error: { id: 'e', code: 'bad' } }, sdk, '/errors')).toEqual([])
    expect(check({ error: { id: 'e' } }, sdk, '/errors').join('\n')).toMatch(/required property 'code'/)
    expect(check({ ...full, extra: 1 }, { oneOfAsAnyOf: true })).toEqual([])
  })

  it("leaves an error's body unjudged where errors are documented without one, and only there", () => {
    const answer = (status: number, method = 'GET') => ({
      method,
      template: '/projects/{id}',
      status,
      body: { error: { code: 'bad' } },
    })
    expect(new VendorSpec(path.join(dir, 'sdk.json'), sdk).check(answer(400)).errors).toEqual([])
    expect(new VendorSpec(path.join(dir, 'sdk.json'), sdk).check(answer(204, 'DELETE')).errors[0]).toMatch(
      /documented without a body/,
    )
    expect(new VendorSpec(path.join(dir, 'sdk.json'), {}).check(answer(400)).errors[0]).toMatch(
      /documented without a body/,
    )
  })

  it('accepts an undocumented status the test tolerates, and no other', () => {
    const spec = new VendorSpec(path.join(dir, 'sdk.json'), {
      ...sdk,
      tolerated: { statuses: { 'GET /projects/{id} 404': 'the vendor answers 404' } },
    })
    expect(spec.check({ method: 'GET', template: '/projects/{id}', status: 404, body: {} }).errors).toEqual(
      [],
    )
    expect(spec.check({ method: 'GET', template: '/projects/{id}', status: 409, body: {} }).errors).toEqual([
      'GET /projects/{id} → 409: status not documented (documented: 200, 400)',
    ])
  })
})

describe('shapeLike', () => {
  const example = { id: 1, subject: 'Printer', priority: 'high', tags: ['a'], via: { channel: 'web' } }

  it("accepts the example's fields with its types, or null for an unset one", () => {
    expect(
      shapeLike(
        { id: 2, subject: 'x', priority: null, tags: [], via: { channel: 'api' }, extra: 1 },
        example,
        't',
      ),
    ).toEqual([])
  })

  it('names a field left out and a field of another type', () => {
    expect(shapeLike({ id: '2', subject: 'x', tags: {}, via: {} }, example, 't')).toEqual([
      't.id: string where the vendor example has number',
      't.priority: missing (the vendor example has "high")',
      't.tags: object where the vendor example has array',
    ])
  })
})
