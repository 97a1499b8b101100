import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { platforms } from '../../platforms/index.ts'
import { ToolRegistry } from '../tools/catalog.ts'
import { defineTool } from '../tools/define.ts'
import { anthropicSchemaProblems } from './anthropic-schema.ts'
import { providerSchemaProblems } from './validate.ts'

// docs/model-agents.md, "Tool schemas": what Anthropic's Messages API refuses in a tool's
// input_schema is named when the agent is saved, with the place in the schema, not found on the
// first call of a run.
describe("schemas Anthropic's Messages API refuses are named, with the place in the schema", () => {
  it.each([
    ['not an object at all', [], 'input_schema', /valid dictionary/],
    ['a bare string', 'object', 'input_schema', /valid dictionary/],
    ['null', null, 'input_schema', /valid dictionary/],
    ['no type', { properties: { a: { type: 'string' } } }, 'input_schema.type', /must be "object", not null/],
    ['a string at the top', { type: 'string' }, 'input_schema.type', /must be "object", not "string"/],
    ['a list of types at the top', { type: ['object', 'null'] }, 'input_schema.type', /must be "object"/],
    [
      'a union at the top',
      { type: 'object', anyOf: [{ properties: { a: {} } }, { properties: { b: {} } }] },
      'input_schema.anyOf',
      /top level/,
    ],
    ['oneOf at the top', { type: 'object', oneOf: [{}, {}] }, 'input_schema.oneOf', /top level/],
    ['allOf at the top', { type: 'object', allOf: [{}] }, 'input_schema.allOf', /top level/],
    [
      'an unknown type deep inside',
      { type: 'object', properties: { status: { type: 'strng' } } },
      'input_schema.properties.status.type',
      /draft 2020-12.*allowed values/,
    ],
    [
      'required that is not a list',
      { type: 'object', properties: { a: { type: 'string' } }, required: 'a' },
      'input_schema.required',
      /draft 2020-12.*must be array/,
    ],
    [
      'a negative length',
      { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', minLength: -1 } } } },
      'input_schema.properties.tags.items.minLength',
      /draft 2020-12/,
    ],
    [
      'properties that is a list',
      { type: 'object', properties: [{ type: 'string' }] },
      'input_schema.properties',
      /draft 2020-12.*must be object/,
    ],
    [
      'a field name with a slash',
      { type: 'object', properties: { 'a/b': { type: 7 } } },
      'input_schema.properties.a/b.type',
      /draft 2020-12/,
    ],
  ])('%s', (_name, schema, path, message) => {
    const problems = anthropicSchemaProblems(schema)
    expect(problems.map((p) => p.path)).toContain(path)
    expect(problems.find((p) => p.path === path)!.message).toMatch(message)
  })

  it.each([
    [
      'a plain object',
      { type: 'object', properties: { ticket_id: { type: 'integer' } }, required: ['ticket_id'] },
    ],
    ['no fields', { type: 'object' }],
    [
      'a union inside a property',
      { type: 'object', properties: { id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } },
    ],
    [
      'nested objects and $defs',
      { type: 'object', $defs: { a: { type: 'string' } }, properties: { x: { $ref: '#/$defs/a' } } },
    ],
    [
      'optional fields and extra properties',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
    ],
  ])('accepts %s', (_name, schema) => {
    expect(anthropicSchemaProblems(schema)).toEqual([])
  })

  it('every tool step Switchyard ships passes, bound or choosing its account', () => {
    const registry = new ToolRegistry(platforms)
    const problems = registry
      .list()
      .flatMap((entry) =>
        [undefined, 'itg_1'].flatMap((integration) =>
          providerSchemaProblems('anthropic', registry.get(entry.id)!, { tool: entry.id, integration }, 0),
        ),
      )
    expect(problems).toEqual([])
  })

  it("saving names the tool's entry, the tool and the path; other providers are not held to Anthropic's rules", () => {
    const tool = defineTool({
      id: 'test.either',
      title: 'Either',
      description: 'A step whose input is one of two shapes',
      effect: 'read',
      input: z.union([z.object({ id: z.number() }), z.object({ email: z.string() })]),
      output: z.object({}),
      run: async () => ({}),
    } as never)
    const registry = new ToolRegistry([{ ...platforms[0]!, id: 'test', tools: [tool] }])
    const registered = registry.get('test.either')!
    const t = { tool: 'test.either', integration: 'itg_1', name: 'find_either' }
    expect(providerSchemaProblems('anthropic', registered, t, 3)).toEqual([
      {
        field: 'tools[3].tool',
        message: expect.stringMatching(/find_either \(test\.either\): input_schema\.type must be "object"/),
      },
      {
        field: 'tools[3].tool',
        message: expect.stringMatching(/find_either \(test\.either\): input_schema\.anyOf .*top level/),
      },
    ])
    expect(providerSchemaProblems('openai-chat', registered, t, 3)).toEqual([])
  })
})
