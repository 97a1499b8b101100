import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'
import { connectTrelloWithToken, TRELLO, trelloControl } from './helpers/trello.ts'

// Bad input (docs/architecture.md, "Guarantees"): any malformed input gets a clear 4xx naming the field; no 5xx, no crash,
// and nothing reaches Trello. Hand-written hostile cases first, then cases generated from each
// step's own JSON Schema (so a new step is fuzzed automatically), then the API Call step's endpoints.

type Schema = Record<string, any>

const CARD = TRELLO.cards.api.id
const LIST = TRELLO.lists.todo.id
const BOARD = TRELLO.board.id
const CHECKLIST = TRELLO.checklist.id
const HUGE = 'x'.repeat(70_000)
const TOO_LONG_TEXT = 'x'.repeat(16_385)

/** A valid input for each step, so a single bad field is the only problem. */
const VALID: Record<string, Record<string, unknown>> = {
  'trello.get_boards': {},
  'trello.get_list_cards': { list_id: LIST },
  'trello.get_card': { card_id: CARD },
  'trello.create_card': { list_id: LIST },
  'trello.update_card': { card_id: CARD, name: 'renamed' },
  'trello.archive_card': { card_id: CARD },
  'trello.create_list': { name: 'Later', board_id: BOARD },
  'trello.add_comment_to_card': { card_id: CARD, text: 'hello' },
  'trello.add_comment': { card_id: CARD, comment: 'hello' },
  'trello.add_checklist': { card_id: CARD },
  'trello.create_checklist_item': { checklist_id: CHECKLIST, name: 'item' },
  'trello.api_call': { method: 'GET', endpoint: '/1/members/me' },
}

/** Ids that are not 24 lowercase hex characters, or that try to leave the path segment. */
const BAD_IDS: unknown[] = [
  'Card0001', // a shortLink: Trello takes it for cards, but the steps promise ids
  CARD.toUpperCase(),
  CARD.slice(1),
  `${CARD}0`,
  CARD.replace(/.$/, 'g'),
  '../../members/me',
  `${CARD}/actions`,
  `${CARD}?fields=all`,
  `${CARD}%2F..`,
  '%2e%2e',
  '',
  '   ',
  123,
  null,
  true,
  {},
  [CARD],
]

type Case = [tool: string, field: string, value: unknown]

/** Each entry replaces (or, with undefined, removes) one field of the tool's valid input. */
const HOSTILE: Case[] = [
  // ids, in every step that takes one
  ...BAD_IDS.map((v): Case => ['trello.get_card', 'card_id', v]),
  ...BAD_IDS.map((v): Case => ['trello.create_card', 'list_id', v]),
  ...BAD_IDS.map((v): Case => ['trello.add_comment', 'card_id', v]),
  ['trello.get_list_cards', 'list_id', 'To Do'],
  ['trello.update_card', 'card_id', 'Card0001'],
  ['trello.update_card', 'list_id', 'Doing'],
  ['trello.update_card', 'board_id', 'Rdmp2024'],
  ['trello.archive_card', 'card_id', '../cards'],
  ['trello.create_list', 'board_id', 'Roadmap'],
  ['trello.add_comment_to_card', 'card_id', null],
  ['trello.add_checklist', 'card_id', 42],
  ['trello.create_checklist_item', 'checklist_id', `${CHECKLIST}/checkItems`],
  // missing required fields
  ['trello.get_card', 'card_id', undefined],
  ['trello.create_card', 'list_id', undefined],
  ['trello.create_list', 'name', undefined],
  ['trello.create_list', 'board_id', undefined],
  ['trello.add_comment_to_card', 'text', undefined],
  ['trello.add_comment', 'comment', undefined],
  ['trello.create_checklist_item', 'name', undefined],
  // empty and blank names and texts
  ['trello.create_card', 'name', ''],
  ['trello.create_card', 'name', '   '],
  ['trello.update_card', 'name', '\n\t'],
  ['trello.create_list', 'name', ''],
  ['trello.add_checklist', 'name', ' '],
  ['trello.create_checklist_item', 'name', ''],
  ['trello.add_comment_to_card', 'text', ''],
  ['trello.add_comment_to_card', 'text', '   '],
  ['trello.add_comment', 'comment', ''],
  // huge strings
  ['trello.create_card', 'name', HUGE],
  ['trello.create_card', 'desc', HUGE],
  ['trello.update_card', 'desc', TOO_LONG_TEXT],
  ['trello.create_list', 'name', HUGE],
  ['trello.add_comment_to_card', 'text', TOO_LONG_TEXT],
  ['trello.add_comment', 'comment', HUGE],
  ['trello.create_checklist_item', 'name', HUGE],
  ['trello.add_checklist', 'items', [HUGE]],
  // wrong types
  ['trello.create_card', 'name', 42],
  ['trello.create_card', 'desc', { text: 'x' }],
  ['trello.create_card', 'label_ids', TRELLO.labels.bug.id],
  ['trello.create_card', 'label_ids', ['Bug']],
  ['trello.create_card', 'label_ids', [null]],
  ['trello.create_card', 'label_ids', Array(101).fill(TRELLO.labels.bug.id)],
  ['trello.update_card', 'member_ids', 'ada'],
  ['trello.update_card', 'member_ids', [TRELLO.members.ada.id, 'grace']],
  ['trello.update_card', 'closed', 'true'],
  ['trello.update_card', 'closed', 1],
  ['trello.update_card', 'due_complete', 'yes'],
  ['trello.add_checklist', 'items', 'one, two'],
  ['trello.add_checklist', 'items', ['one', '']],
  ['trello.add_checklist', 'items', [1, 2]],
  ['trello.add_checklist', 'items', Array(51).fill('step')],
  ['trello.create_checklist_item', 'checked', 'yes'],
  ['trello.get_boards', 'filter', 'everything'],
  ['trello.get_boards', 'filter', 1],
  ['trello.get_list_cards', 'filter', 'visible'],
  // bad pos values
  ...['middle', 'TOP', '', '16384', 0, -1, -0.5, [1], { top: true }].map((v): Case => [
    'trello.create_card',
    'pos',
    v,
  ]),
  ['trello.update_card', 'pos', 'first'],
  ['trello.create_list', 'pos', 'left'],
  ['trello.create_list', 'pos', -16384],
  ['trello.add_checklist', 'pos', 0],
  ['trello.create_checklist_item', 'pos', 'end'],
  // bad dates
  ...[
    'tomorrow',
    '2025-02-30T00:00:00Z',
    '2025-03-01',
    '2025-03-01T17:00:00',
    '2025-13-01T00:00:00Z',
    '01/03/2025',
    1_740_848_400_000,
    true,
    {},
  ].map((v): Case => ['trello.create_card', 'due', v]),
  ['trello.update_card', 'due', 'never'],
  ['trello.create_checklist_item', 'due', 'soon'],
  // nulls where a value is required or null means nothing
  ['trello.create_card', 'name', null],
  ['trello.create_card', 'pos', null],
  ['trello.create_card', 'label_ids', null],
  ['trello.update_card', 'closed', null],
  ['trello.update_card', 'name', null],
  ['trello.create_list', 'name', null],
  ['trello.get_boards', 'filter', null],
  ['trello.add_comment', 'comment', null],
  ['trello.create_checklist_item', 'checked', null],
  ['trello.add_checklist', 'items', null],
  // unknown fields: a typo must not silently drop a change
  ['trello.create_card', 'description', 'lost'],
  ['trello.create_card', 'idList', LIST], // the name before the catalogue's convention (docs/tools.md)
  ['trello.update_card', 'color', 'red'],
  ['trello.archive_card', 'closed', false],
  ['trello.get_boards', 'member', 'grace'],
  ['trello.add_comment_to_card', 'comment', 'legacy field name'],
  ['trello.add_comment', 'text', 'new field name'],
  ['trello.add_checklist', 'checkItems', ['a']],
  ['trello.create_checklist_item', 'state', 'complete'],
  ['trello.get_card', 'key', TRELLO.app.key],
]

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
        (!schema.pattern || new RegExp(schema.pattern).test(value))
      )
    case 'integer':
      return (
        Number.isInteger(value) &&
        (value as number) >= (schema.minimum ?? -Infinity) &&
        (value as number) <= (schema.maximum ?? Infinity)
      )
    case 'number':
      return (
        typeof value === 'number' &&
        (schema.exclusiveMinimum === undefined || (value as number) > schema.exclusiveMinimum)
      )
    case 'boolean':
      return typeof value === 'boolean'
    case 'null':
      return value === null
    case 'array':
      return (
        Array.isArray(value) &&
        value.length <= (schema.maxItems ?? Infinity) &&
        value.every((v) => accepts(schema.items ?? {}, v))
      )
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    default:
      return true
  }
}

let stack: TestStack
let integration: string
let tools: Array<{ id: string; inputSchema: Schema }>
let api: ReturnType<typeof client>
let elsewhere: http.Server
let elsewherePort = 0
let elsewhereHits = 0
let pastedToken: string

beforeAll(async () => {
  stack = await startTestStack()
  integration = await connectTrelloWithToken(stack)
  api = client(stack, stack.apiKey)
  tools = (await api.get('/v1/tools')).body.tools.filter((t: { platform: string }) => t.platform === 'trello')
  elsewhere = http.createServer((_req, res) => {
    elsewhereHits++
    res.end('pwned')
  })
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve))
  elsewherePort = (elsewhere.address() as { port: number }).port
  pastedToken = await trelloControl(stack).mintToken('grace')
})
afterAll(async () => {
  await stack?.close()
  elsewhere?.close()
})

/** Runs `input` and expects 400 invalid_input naming only `input.<field>` (or a part of it, `input.<field>[i]`, `input.<field>.x`). */
async function expectRefused(tool: string, input: unknown, field: string) {
  const { status, body } = await api.run(tool, integration, input)
  const label = `${tool} ${field} ${JSON.stringify(input)?.slice(0, 100)}`
  expect(status, label).toBe(400)
  expect(body.code, label).toBe('invalid_input')
  const named: string[] = body.errors.map((e: { field: string }) => e.field)
  expect(named.length, label).toBeGreaterThan(0)
  expect(
    named.every(
      (f) => f === `input.${field}` || f.startsWith(`input.${field}[`) || f.startsWith(`input.${field}.`),
    ),
    `${label} named ${named}`,
  ).toBe(true)
  expect(
    body.errors.every((e: { message: string }) => e.message.length > 0),
    label,
  ).toBe(true)
}

describe('bad input on every Trello tool step', () => {
  it('every Trello step has a valid baseline here', () => {
    expect(tools.map((t) => t.id).sort()).toEqual(Object.keys(VALID).sort())
  })

  it(`refuses ${HOSTILE.length} hand-written hostile inputs, naming the field, and sends nothing`, async () => {
    expect(new Set(HOSTILE.map(([tool]) => tool))).toEqual(
      new Set(Object.keys(VALID).filter((id) => id !== 'trello.api_call')),
    )
    const control = trelloControl(stack)
    await control.clearRequests()
    for (const [tool, field, value] of HOSTILE) {
      const input: Record<string, unknown> = { ...VALID[tool] }
      if (value === undefined) delete input[field]
      else input[field] = value
      await expectRefused(tool, input, field)
    }
    expect(await control.requests()).toEqual([])
  })

  it("each invalid value generated from a step's JSON Schema gets 400 naming only that field, and sends nothing", async () => {
    const control = trelloControl(stack)
    await control.clearRequests()
    let cases = 0
    for (const tool of tools) {
      for (const [field, schema] of Object.entries<Schema>(tool.inputSchema.properties ?? {})) {
        if (tool.id === 'trello.api_call' && field === 'body') continue // any JSON is a valid body
        for (const value of invalidValuesFor(schema)) {
          cases++
          await expectRefused(tool.id, { ...VALID[tool.id], [field]: value }, field)
        }
      }
    }
    expect(cases).toBeGreaterThan(100)
    expect(await control.requests()).toEqual([])
  })

  it('Update Card with nothing to change names the problem and sends nothing', async () => {
    const control = trelloControl(stack)
    await control.clearRequests()
    const { status, body } = await api.run('trello.update_card', integration, { card_id: CARD })
    expect(status).toBe(400)
    expect(body.errors[0]).toMatchObject({
      field: 'input.name',
      message: expect.stringMatching(/at least one change/),
    })
    expect(await control.requests()).toEqual([])
  })

  it('a bad id says what it expected', async () => {
    const { body } = await api.run('trello.get_card', integration, { card_id: 'Card0001' })
    expect(body.errors).toEqual([
      {
        field: 'input.card_id',
        message: expect.stringMatching(/card id: 24 lowercase hexadecimal characters/),
      },
    ])
  })

  it.each([null, 'text', 42, [1], true])('a whole input of %j is refused with a 4xx', async (input) => {
    const control = trelloControl(stack)
    await control.clearRequests()
    for (const tool of tools) {
      const { status, body } = await api.call('POST', `/v1/tools/${tool.id}/run`, { integration, input })
      if (tool.id === 'trello.get_boards' && input === null) {
        expect(status).toBe(200)
        continue
      } // every field is optional
      expect(status, `${tool.id} ${JSON.stringify(input)}`).toBe(400)
      expect(body.code).toBe('invalid_input')
    }
    expect((await control.requests()).length).toBe(input === null ? 1 : 0)
  })

  it.each([
    ['__proto__', '{"integration":"INT","input":{"card_id":"CARD","__proto__":{"admin":true}}}'],
    [
      'constructor.prototype',
      '{"integration":"INT","input":{"card_id":"CARD","constructor":{"prototype":{"admin":true}}}}',
    ],
  ])('a %s key is refused, not merged', async (key, raw) => {
    const control = trelloControl(stack)
    await control.clearRequests()
    const { status, body } = await api.call(
      'POST',
      '/v1/tools/trello.get_card/run',
      raw.replace('INT', integration).replace('CARD', CARD),
    )
    expect(status).toBe(400)
    expect(body.code).toBe('invalid_input')
    expect(body.errors).toEqual([{ field: 'body', message: `must not hold a "${key}" key` }])
    expect(await control.requests()).toEqual([])
  })
})

// API Call safety (docs/security.md) with Trello's prefix: only a relative path under /1/; everything else
// is refused with 400 before any byte leaves, and nothing reaches any host but Trello's.
const HOSTILE_ENDPOINTS: string[] = [
  // traversal
  '/1/../../etc/passwd',
  '/1/cards/../../_control/reset',
  `/1/cards/${CARD}/../../../_control/reset`,
  '/1/./members/me',
  '/1/cards/..',
  '/1/..',
  '/1/%2e%2e/_control/requests',
  '/1/%2E%2E/%2E%2E/_control/reset',
  '/1/.%2e/x',
  '/1/%2e./x',
  '/1/%252e%252e/x',
  '/1/cards/%u002e%u002e/x',
  '/1/\uff0e\uff0e/x',
  '/1/%ef%bc%8e%ef%bc%8e/x',
  // encoded separators and delimiters
  '/1/cards%2f..%2f..%2f_control',
  `/1/cards%2F${CARD}`,
  '/1/cards%5c..%5c_control',
  '/1/members%00/me',
  '/1/%252f/x',
  '/1/members%3fkey=x',
  '/1/members%23fragment',
  '/1/members%40evil.example',
  // backslashes and empty segments
  '/1\\..\\_control',
  `/1/cards\\${CARD}`,
  '/1//evil.example/x',
  '//evil.example/1/members/me',
  '/1/cards//x',
  // absolute URLs and scheme tricks
  'https://evil.example/1/members/me',
  'https://api.trello.com/1/members/me',
  'http://127.0.0.1:1/1/members/me',
  'HTTP://evil.example/1/',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'data:text/plain,hi',
  '\\\\evil.example\\1\\members',
  // host tricks
  '/1/@evil.example/x',
  '@evil.example/1/members/me',
  '/1/members/me@evil.example',
  '/1/members/me#@evil.example',
  '/1/members/me#fragment',
  '/1:80@evil.example/',
  // CRLF and control characters
  '/1/members/me\r\nHost: evil.example',
  '/1/members/me%0d%0aX-Injected:1',
  '/1/members/me\nX: y',
  '/1/members\u0000/me',
  '/1/members\t/me',
  '/1/mem bers/me',
  '/1/members/me\u007f',
  '/1/members/\u2028me',
  '/1/members/me?x=1\r\nHost: evil.example',
  // not under the prefix
  '/2/members/me',
  '/1',
  '1/members/me',
  '/1OAuthGetAccessToken',
  '/trello/_control/reset',
  '/_control/reset',
  '/app-key',
  ' /1/members/me',
  '',
  // over-long
  `/1/${'a'.repeat(5000)}`,
  `/1/members/me?q=${'x'.repeat(3000)}`,
]

describe('Trello API Call safety: hostile endpoints', () => {
  it(`has at least 40 cases (${HOSTILE_ENDPOINTS.length})`, () => {
    expect(HOSTILE_ENDPOINTS.length).toBeGreaterThanOrEqual(40)
  })

  it.each(HOSTILE_ENDPOINTS.map((e) => [JSON.stringify(e).slice(0, 80), e]))(
    'refuses %s with 400 and sends nothing',
    async (_label, endpoint) => {
      const control = trelloControl(stack)
      await control.clearRequests()
      // With the integration's credentials and with a key plus token given in the step alike.
      for (const auth of [{}, { auth: 'api_key', key: TRELLO.app.key, token: pastedToken }]) {
        for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
          const { status, body } = await api.run('trello.api_call', integration, {
            ...auth,
            method,
            endpoint,
            ...(method === 'POST' || method === 'PUT' ? { body: {} } : {}),
          })
          expect(status, JSON.stringify(body)).toBe(400)
          expect(body.code).toBe('invalid_input')
          expect(body.errors.map((e: any) => e.field)).toContain('input.endpoint')
        }
      }
      expect(await control.requests()).toEqual([])
      expect(elsewhereHits).toBe(0)
    },
  )

  it('refuses endpoints aimed at a listening host on loopback, which sees nothing', async () => {
    const control = trelloControl(stack)
    await control.clearRequests()
    for (const endpoint of [
      `http://127.0.0.1:${elsewherePort}/1/members/me`,
      `//127.0.0.1:${elsewherePort}/1/members/me`,
      `/1/@127.0.0.1:${elsewherePort}/members/me`,
      `/1:x@127.0.0.1:${elsewherePort}/1/members/me`,
      `\\\\127.0.0.1:${elsewherePort}\\1\\members`,
    ]) {
      const { status, body } = await api.run('trello.api_call', integration, { method: 'GET', endpoint })
      expect(status, endpoint).toBe(400)
      expect(body.errors[0].field).toBe('input.endpoint')
    }
    expect(await control.requests()).toEqual([])
    expect(elsewhereHits).toBe(0)
  })

  it.each([
    ['authorization', 'OAuth oauth_consumer_key="x", oauth_token="stolen"'],
    ['Authorization', 'Basic x'],
    ['host', 'evil.example'],
    ['Cookie', 'a=b'],
    ['proxy-authorization', 'x'],
    ['x-ok', 'value\r\nHost: evil.example'],
  ])('refuses a caller header %s', async (name, value) => {
    const control = trelloControl(stack)
    await control.clearRequests()
    const { status, body } = await api.run('trello.api_call', integration, {
      method: 'GET',
      endpoint: '/1/members/me',
      headers: { [name]: value },
    })
    expect(status).toBe(400)
    expect(body.errors[0].field).toMatch(/^input\.headers/)
    expect(await control.requests()).toEqual([])
  })

  it('a safe endpoint does reach the sandbox, with credentials in a header only', async () => {
    const control = trelloControl(stack)
    await control.clearRequests()
    const { status, body } = await api.run('trello.api_call', integration, {
      method: 'GET',
      endpoint: '/1/members/me?fields=username',
    })
    expect(status).toBe(200)
    expect(body.output.body).toMatchObject({ id: TRELLO.members.ada.id, username: 'ada' })
    const requests = await control.requests()
    expect(requests).toHaveLength(1)
    expect(requests[0]).toMatchObject({
      method: 'GET',
      path: '/trello/1/members/me',
      query: { fields: 'username' },
    })
  })
})
