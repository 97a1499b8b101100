import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { connectVercel } from './helpers/vercel.ts'
import { client, controlCaller, zendeskControl } from './helpers/stack.ts'

// Bad input: any malformed input gets a clear 4xx naming the field; no 5xx, no crash, nothing sent.
// The cases are generated from each tool's own JSON Schema, so a new step is fuzzed automatically.

type Schema = Record<string, any>

/** Values that violate `schema`, each one clearly wrong for it. */
function invalidValuesFor(schema: Schema): unknown[] {
  const variants: Schema[] = schema.anyOf ?? schema.oneOf ?? [schema]
  const types = new Set(variants.flatMap((v) => (v.enum ? ['enum'] : [v.type ?? 'any'])))
  const candidates: unknown[] = [
    { nested: true },
    [1, 2],
    true,
    -1,
    1.5,
    'not-a-valid-value-∞',
    '',
    'x'.repeat(70_000),
  ]
  return candidates
    .filter((value) => !variants.some((v) => accepts(v, value)))
    .filter((value) => !(types.has('any') && value !== undefined))
}

function accepts(schema: Schema, value: unknown): boolean {
  if (schema.anyOf) return schema.anyOf.some((s: Schema) => accepts(s, value))
  if (schema.enum) return schema.enum.includes(value)
  switch (schema.type) {
    case 'string':
      return (
        typeof value === 'string' &&
        value.trim().length >= (schema.minLength ?? 0) &&
        value.length <= (schema.maxLength ?? Infinity) &&
        (!schema.format || schema.format !== 'email' || /@/.test(value)) &&
        (!schema.pattern || new RegExp(schema.pattern).test(value))
      )
    case 'integer':
      return (
        Number.isInteger(value) &&
        (value as number) >=
          (schema.minimum ??
            (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -Infinity)) &&
        (value as number) <= (schema.maximum ?? Infinity)
      )
    case 'number':
      return typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    case 'array':
      return Array.isArray(value) && value.every((v) => accepts(schema.items ?? {}, v))
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    default:
      return true
  }
}

/** A valid input for the tool, so a single bad field is the only problem. */
const VALID: Record<string, Record<string, unknown>> = {
  'zendesk.create_ticket': { subject: 's', description: 'd' },
  'zendesk.get_ticket': { ticket_id: 1 },
  'zendesk.list_tickets': {},
  'zendesk.search_tickets': { query: 'printer' },
  'zendesk.update_ticket': { ticket_id: 1, status: 'open' },
  'zendesk.delete_ticket': { ticket_id: 1 },
  'zendesk.api_call': { method: 'GET', endpoint: '/api/v2/tickets.json' },
  'vercel.create_deployment': { project: 'ada-blog' },
  'vercel.list_deployments': {},
  'vercel.get_deployment': { id: 'dpl_AdaBlogReadySandbox0000000001' },
  'vercel.cancel_deployment': { id: 'dpl_AdaBlogReadySandbox0000000001' },
  'vercel.api_call': { method: 'GET', endpoint: '/v13/deployments/dpl_x' },
}

/** Trello's steps have their own, larger table (trello-bad-input.test.ts). */
const FUZZED_PLATFORMS = ['zendesk', 'vercel']

let stack: TestStack
const integrations: Record<string, string> = {}
let tools: Array<{ id: string; platform: string; inputSchema: Schema }>

beforeAll(async () => {
  stack = await startTestStack()
  integrations.zendesk = (await connectZendesk(stack)).integrationId!
  integrations.vercel = (await connectVercel(stack)).integrationId!
  tools = (await client(stack, stack.apiKey).get('/v1/tools')).body.tools.filter((t: { platform: string }) =>
    FUZZED_PLATFORMS.includes(t.platform),
  )
})
const integrationFor = (tool: { platform: string }) => integrations[tool.platform]
afterAll(async () => {
  await stack?.close()
})

describe('bad input on every Zendesk and Vercel tool step, fuzzed from its schema', () => {
  it('every tool has a valid baseline here', () => {
    expect(tools.map((t) => t.id).sort()).toEqual(Object.keys(VALID).sort())
  })

  it('each invalid field value gets 400 invalid_input naming only that field, and nothing reaches the platform', async () => {
    const logs = FUZZED_PLATFORMS.map((p) => controlCaller(`${stack.sandboxUrl}/${p}/_control`))
    for (const log of logs) await log('DELETE', '/requests')
    let cases = 0
    for (const tool of tools) {
      for (const [field, schema] of Object.entries<Schema>(tool.inputSchema.properties ?? {})) {
        if (tool.id.endsWith('.api_call') && field === 'body') continue // any JSON is a valid body
        if (tool.id.endsWith('.api_call') && field === 'auth') continue // a union with a default: covered by its own tests
        for (const value of invalidValuesFor(schema)) {
          cases++
          const { status, body } = await client(stack, stack.apiKey).run(tool.id, integrationFor(tool), {
            ...VALID[tool.id],
            [field]: value,
          })
          const label = `${tool.id}.${field} = ${JSON.stringify(value)?.slice(0, 40)}`
          expect(status, label).toBe(400)
          expect(body.code, label).toBe('invalid_input')
          const named: string[] = body.errors.map((e: { field: string }) => e.field)
          expect(named.length, label).toBeGreaterThan(0)
          expect(
            named.every(
              (f) =>
                f === `input.${field}` || f.startsWith(`input.${field}[`) || f.startsWith(`input.${field}.`),
            ),
            `${label} named ${named}`,
          ).toBe(true)
        }
      }
    }
    expect(cases).toBeGreaterThan(100)
    for (const log of logs) expect((await log('GET', '/requests')).body.requests).toEqual([])
  })

  it('an undeclared field, such as a mistyped one, gets 400 naming it and the fields there are, and nothing reaches the platform', async () => {
    const logs = FUZZED_PLATFORMS.map((p) => controlCaller(`${stack.sandboxUrl}/${p}/_control`))
    for (const log of logs) await log('DELETE', '/requests')
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties, tool.id).toBe(false)
      const { status, body } = await client(stack, stack.apiKey).run(tool.id, integrationFor(tool), {
        ...VALID[tool.id],
        priorty: 'urgent',
      })
      expect(status, tool.id).toBe(400)
      expect(body.errors, tool.id).toEqual([
        {
          field: 'input.priorty',
          message: `is not a known field; the fields are ${Object.keys(tool.inputSchema.properties ?? {}).join(', ')}`,
        },
      ])
    }
    for (const log of logs) expect((await log('GET', '/requests')).body.requests).toEqual([])
  })

  it.each([null, 'text', 42, [1], true])('a whole input of %j is refused with a 4xx', async (input) => {
    for (const tool of tools) {
      const { status, body } = await client(stack, stack.apiKey).call('POST', `/v1/tools/${tool.id}/run`, {
        integration: integrationFor(tool),
        input,
      })
      // Steps whose fields are all optional accept no input at all.
      if (['zendesk.list_tickets', 'vercel.list_deployments'].includes(tool.id) && input === null) {
        expect(status).toBe(200)
        continue
      }
      expect(status, `${tool.id} ${JSON.stringify(input)}`).toBe(400)
      expect(body.code).toBe('invalid_input')
    }
  })

  it.each([
    ['not JSON', '{"integration":', 400, 'invalid_input', ['body']],
    ['an array body', '[]', 400, 'invalid_input', ['integration']],
    ['no integration', JSON.stringify({ input: { ticket_id: 1 } }), 400, 'invalid_input', ['integration']],
    [
      'a numeric integration',
      JSON.stringify({ integration: 5, input: { ticket_id: 1 } }),
      400,
      'invalid_input',
      ['integration'],
    ],
    [
      'a __proto__ key',
      '{"integration":"int_x","input":{"__proto__":{"admin":true}}}',
      400,
      'invalid_input',
      ['body'],
    ],
    [
      'an unknown integration',
      JSON.stringify({ integration: 'int_nope', input: { ticket_id: 1 } }),
      404,
      'not_found',
      undefined,
    ],
  ])('a request with %s gets %i %s naming %j', async (_label, raw, status, code, fields) => {
    const { status: got, body } = await client(stack, stack.apiKey).call(
      'POST',
      '/v1/tools/zendesk.get_ticket/run',
      raw,
    )
    expect(got).toBe(status)
    expect(body.code).toBe(code)
    expect(body.errors?.map((e: { field: string }) => e.field)).toEqual(fields)
  })

  it.each([
    ['{"input":{"__proto__":{"admin":true}}}', '"__proto__"'],
    ['{"input":{"constructor":{"prototype":{"admin":true}}}}', '"constructor.prototype"'],
  ])('%s is refused for its key, not called invalid JSON', async (raw, key) => {
    const { status, body } = await client(stack, stack.apiKey).call(
      'POST',
      '/v1/tools/zendesk.get_ticket/run',
      raw,
    )
    expect(status).toBe(400)
    expect(body.detail).toBe(`the body holds a ${key} key, which is refused`)
    expect(body.errors).toEqual([{ field: 'body', message: `must not hold a ${key} key` }])
  })

  it.each([
    [
      'a body over 2 MB',
      413,
      'payload_too_large',
      'application/json',
      JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) }),
    ],
    ['a text/plain body', 415, 'unsupported_media_type', 'text/plain', 'name=x'],
    ['a form body', 415, 'unsupported_media_type', 'application/x-www-form-urlencoded', 'name=x'],
  ])('%s gets %i %s naming the body', async (_label, status, code, contentType, raw) => {
    const response = await fetch(`${stack.url}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': contentType },
      body: raw,
    })
    const body = await response.json()
    expect(response.status).toBe(status)
    expect(body).toMatchObject({ status, code, errors: [{ field: 'body', message: expect.any(String) }] })
  })

  it('an unknown tool is not_found', async () => {
    const { status, body } = await client(stack, stack.apiKey).run('zendesk.nope', integrations.zendesk, {})
    expect(status).toBe(404)
    expect(body.code).toBe('not_found')
  })

  it('update with nothing to change, or with both a note and a comment, names the field', async () => {
    const none = await client(stack, stack.apiKey).run('zendesk.update_ticket', integrations.zendesk, {
      ticket_id: 1,
    })
    expect(none.status).toBe(400)
    const both = await client(stack, stack.apiKey).run('zendesk.update_ticket', integrations.zendesk, {
      ticket_id: 1,
      internal_note: 'a',
      public_comment: 'b',
    })
    expect(both.body.errors[0].field).toBe('input.public_comment')
  })
})

// PostgreSQL refuses the NUL character, so before the edge guard these answered 500 on both stores.
const STORES: Array<[string, string | undefined]> = [['PGlite', undefined]]
if (process.env.TEST_DATABASE_URL) STORES.push(['PostgreSQL', process.env.TEST_DATABASE_URL])

describe.each(STORES)(
  'hostile text is refused at the edge with 400 naming the field (%s)',
  (_store, databaseUrl) => {
    let own: TestStack
    let zendesk: string
    beforeAll(async () => {
      own = await startTestStack({ databaseUrl })
      zendesk = (await connectZendesk(own)).integrationId!
    })
    afterAll(async () => {
      await own?.close()
    })

    it.each([
      ['a NUL in a path parameter', 'GET', '/v1/integrations/%00', undefined, 'id'],
      ['a NUL in the API key to delete', 'DELETE', '/v1/api-keys/a%00', undefined, 'id'],
      [
        'a NUL in a tool id',
        'POST',
        '/v1/tools/zendesk.get%00/run',
        { integration: 'int_x', input: {} },
        'id',
      ],
      ['a NUL in a query parameter', 'GET', '/v1/integrations?platform=%00', undefined, 'query.platform'],
      ['a NUL in a JSON string', 'POST', '/v1/api-keys', { name: 'a\u0000b' }, 'name'],
      [
        'a NUL in the integration of a tool run',
        'POST',
        '/v1/tools/zendesk.get_ticket/run',
        { integration: 'int_\u0000', input: { ticket_id: 1 } },
        'integration',
      ],
      [
        'a NUL deep in a tool input',
        'POST',
        '/v1/tools/zendesk.create_ticket/run',
        { integration: 'int_x', input: { subject: 's', description: 'd', tags: ['ok', 'b\u0000d'] } },
        'input.tags[1]',
      ],
      [
        'a NUL in a field name',
        'POST',
        '/v1/integrations/connect',
        { platform: 'zendesk', fields: { 'sub\u0000domain': 'acme' } },
        'fields.sub\\u0000domain',
      ],
      // A lone UTF-16 surrogate: jsonb refuses its escape, so before the guard these answered 500 (issue 22).
      ['a lone high surrogate in an agent name', 'POST', '/v1/agents', { name: 'a\ud800' }, 'name'],
      [
        'a lone low surrogate in a run input',
        'POST',
        '/v1/agents/agt_x/runs',
        { inputs: { title: '\udc00title' } },
        'inputs.title',
      ],
      [
        'a lone surrogate in a subscription mapping',
        'POST',
        '/v1/agents/agt_x/subscriptions',
        { trigger_id: 'trello.card_created', mapping: { title: '{{ card.name }}\ud83d' } },
        'mapping.title',
      ],
      [
        'a lone surrogate in a mapping name',
        'PATCH',
        '/v1/subscriptions/sub_x',
        { mapping: { 'ti\udfffle': '{{ card.name }}' } },
        'mapping.ti\\udfffle',
      ],
    ])('%s', async (_label, method, path, body, field) => {
      const { status, body: problem } = await client(own, own.apiKey).call(method, path, body)
      expect(status).toBe(400)
      expect(problem.code).toBe('invalid_input')
      expect(problem.errors.map((e: { field: string }) => e.field)).toEqual([field])
    })

    it('a surrogate pair (an emoji) is one character and is kept', async () => {
      const { status, body } = await client(own, own.apiKey).call('POST', '/v1/api-keys', { name: 'ok 😀' })
      expect(status).toBe(201)
      expect(body.name).toBe('ok 😀')
    })

    it('an API Call header value outside Latin-1 is refused naming the header, and nothing is sent', async () => {
      await zendeskControl(own).clearRequests()
      const { status, body } = await client(own, own.apiKey).run('zendesk.api_call', zendesk, {
        method: 'GET',
        endpoint: '/api/v2/users/me.json',
        headers: { 'X-A': '✓' },
      })
      expect(status).toBe(400)
      expect(body.code).toBe('invalid_input')
      expect(body.errors).toEqual([{ field: 'input.headers.X-A', message: expect.stringMatching(/Latin-1/) }])
      expect(await zendeskControl(own).requests()).toEqual([])
    })
  },
)
