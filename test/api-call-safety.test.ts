import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, controlCaller } from './helpers/stack.ts'
import { connectTrelloWithToken } from './helpers/trello.ts'
import { connectVercel } from './helpers/vercel.ts'

// API Call safety (docs/security.md): only a relative path under the platform's prefix; everything else
// is refused with 400 before any byte leaves, and nothing reaches any host but the platform's.
const HOSTILE_ENDPOINTS: string[] = [
  // traversal
  '/api/v2/../../etc/passwd',
  '/api/v2/tickets/../../../_control/reset',
  '/api/v2/./tickets.json',
  '/api/v2/tickets/..',
  '/api/v2/%2e%2e/_control/requests',
  '/api/v2/%2E%2E/%2E%2E/admin',
  '/api/v2/.%2e/x',
  '/api/v2/%2e./x',
  '/api/v2/%252e%252e/x',
  '/api/v2/tickets/%u002e%u002e/x',
  '/api/v2/\uff0e\uff0e/x',
  '/api/v2/%ef%bc%8e%ef%bc%8e/x',
  // encoded separators
  '/api/v2/tickets%2f..%2f..%2fadmin',
  '/api/v2/tickets%2F1.json',
  '/api/v2/tickets%5c..%5cadmin',
  '/api/v2/tickets%00.json',
  '/api/v2/%252f/x',
  // backslashes and empty segments
  '/api/v2\\..\\admin',
  '/api/v2/tickets\\1.json',
  '/api/v2//evil.example/x',
  '//evil.example/api/v2/tickets.json',
  '/api/v2/tickets//1.json',
  // absolute URLs and scheme tricks
  'https://evil.example/api/v2/tickets.json',
  'http://127.0.0.1:1/api/v2/tickets.json',
  'HTTP://evil.example/api/v2/',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'data:text/plain,hi',
  '\\\\evil.example\\api\\v2',
  // host tricks
  '/api/v2/@evil.example/x',
  '@evil.example/api/v2/tickets.json',
  '/api/v2/tickets.json@evil.example',
  '/api/v2/tickets.json#@evil.example',
  '/api/v2/tickets.json#fragment',
  '/api/v2:80@evil.example/',
  // CRLF and control characters
  '/api/v2/tickets.json\r\nHost: evil.example',
  '/api/v2/tickets.json%0d%0aX-Injected:1',
  '/api/v2/tickets.json\nX: y',
  '/api/v2/tickets\u0000.json',
  '/api/v2/tickets\t.json',
  '/api/v2/tic kets.json',
  '/api/v2/tickets.json?x=1\r\nHost: evil.example',
  // not under the prefix
  '/api/v1/tickets.json',
  '/api/v2',
  'api/v2/tickets.json',
  '/oauth/tokens',
  '/zendesk/_control/reset',
  '/API/V2/tickets.json',
  ' /api/v2/tickets.json',
  '',
  // over-long
  `/api/v2/${'a'.repeat(5000)}`,
  `/api/v2/tickets.json?q=${'x'.repeat(3000)}`,
]

/** Each platform's API Call step, with the prefix its endpoints start with. */
const PLATFORMS = [
  {
    id: 'zendesk',
    base: '/api/v2',
    connect: async (s: TestStack) => (await connectZendesk(s)).integrationId!,
  },
  { id: 'trello', base: '/1', connect: (s: TestStack) => connectTrelloWithToken(s) },
  { id: 'vercel', base: '/v13', connect: async (s: TestStack) => (await connectVercel(s)).integrationId! },
]
/** The table is written for Zendesk's /api/v2; the same attacks apply under every platform's prefix. */
const endpointsFor = (base: string) => HOSTILE_ENDPOINTS.map((e) => e.replaceAll('/api/v2', base))

let stack: TestStack
const integrations: Record<string, string> = {}
let elsewhere: http.Server
let elsewhereHits = 0

const requestLogOf = async (platform: string) => {
  const { body } = await controlCaller(`${stack.sandboxUrl}/${platform}/_control`)(
    'GET',
    '/requests?limit=100000',
  )
  return body.requests as unknown[]
}
const clearLogOf = (platform: string) =>
  controlCaller(`${stack.sandboxUrl}/${platform}/_control`)('DELETE', '/requests')

beforeAll(async () => {
  stack = await startTestStack()
  for (const p of PLATFORMS) integrations[p.id] = await p.connect(stack)
  elsewhere = http.createServer((_req, res) => {
    elsewhereHits++
    res.end('pwned')
  })
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  await stack?.close()
  elsewhere?.close()
})

describe.each(PLATFORMS)('API Call safety on $id: hostile endpoints and headers', ({ id, base }) => {
  it(`has at least 40 cases (${HOSTILE_ENDPOINTS.length})`, () => {
    expect(HOSTILE_ENDPOINTS.length).toBeGreaterThanOrEqual(40)
  })

  it.each(endpointsFor(base).map((e) => [JSON.stringify(e).slice(0, 80), e]))(
    'refuses %s with 400 and sends nothing',
    async (_label, endpoint) => {
      await clearLogOf(id)
      for (const method of ['GET', 'POST']) {
        const { status, body } = await client(stack, stack.apiKey).run(`${id}.api_call`, integrations[id], {
          method,
          endpoint,
          ...(method === 'POST' ? { body: {} } : {}),
        })
        expect(status, JSON.stringify(body)).toBe(400)
        expect(body.code).toBe('invalid_input')
        expect(body.errors.map((e: any) => e.field)).toContain('input.endpoint')
      }
      expect(await requestLogOf(id)).toEqual([])
      expect(elsewhereHits).toBe(0)
    },
  )

  it.each([
    ['authorization', 'Bearer stolen'],
    ['Authorization', 'Basic x'],
    ['host', 'evil.example'],
    ['Cookie', 'a=b'],
    ['proxy-authorization', 'x'],
    ['connection', 'close'],
    ['transfer-encoding', 'chunked'],
    ['content-length', '0'],
    ['te', 'trailers'],
    ['upgrade', 'websocket'],
    ['keep-alive', 'timeout=5'],
    ['x-forwarded-for', '10.0.0.1'],
    ['x-ok', 'value\r\nHost: evil.example'],
    ['bad header name', 'x'],
  ])('refuses a caller header %s', async (name, value) => {
    await clearLogOf(id)
    const { status, body } = await client(stack, stack.apiKey).run(`${id}.api_call`, integrations[id], {
      method: 'GET',
      endpoint: `${base}/x`,
      headers: { [name]: value },
    })
    expect(status).toBe(400)
    expect(body.errors[0].field).toMatch(/^input\.headers/)
    expect(await requestLogOf(id)).toEqual([])
  })
})
