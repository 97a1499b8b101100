import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppError } from '../errors.ts'
import { RateBudget } from '../limits/budget.ts'
import { MemoryBudgetStore } from '../limits/budget-memory.ts'
import { createApiClient, MAX_RESPONSE_BYTES } from './api-client.ts'

// The host-pinned client: redirects are never followed, huge answers are refused, auth is its own.
let platform: http.Server
let elsewhere: http.Server
let elsewhereHits = 0
const seen: Array<{ url: string; authorization?: string }> = []
const stalled: http.ServerResponse[] = []

const listen = (server: http.Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  )

let platformUrl: string
let elsewhereUrl: string

beforeAll(async () => {
  elsewhere = http.createServer((_req, res) => {
    elsewhereHits++
    res.end('{}')
  })
  elsewhereUrl = await listen(elsewhere)
  platform = http.createServer((req, res) => {
    seen.push({ url: req.url!, authorization: req.headers.authorization })
    if (req.url!.startsWith('/acct/api/redirect')) {
      res.writeHead(302, { location: `${elsewhereUrl}/api/stolen` })
      return res.end()
    }
    if (req.url!.startsWith('/acct/api/huge')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(1024 * 1024, 'a')
      let sent = 0
      const pump = () => {
        while (sent <= MAX_RESPONSE_BYTES && res.write(chunk)) sent += chunk.length
        if (sent > MAX_RESPONSE_BYTES) res.end()
        else res.once('drain', pump)
      }
      return pump()
    }
    if (req.url!.startsWith('/acct/api/declared-huge')) {
      // Declares more than the bound, then sends a little and waits: only the declaration can refuse it.
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(MAX_RESPONSE_BYTES + 1),
      })
      return res.write('{"a":')
    }
    if (req.url!.startsWith('/acct/api/silent')) {
      stalled.push(res) // never answers
      return
    }
    if (req.url!.startsWith('/acct/api/trickle')) {
      // A byte every 20 ms for ever: no idle timeout ever fires.
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('[')
      const timer = setInterval(() => res.write(' '), 20)
      res.on('close', () => clearInterval(timer))
      stalled.push(res)
      return
    }
    if (req.url!.startsWith('/acct/api/unstorable')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      // Written by hand: JSON.stringify would never produce the escapes a platform may send.
      return res.end(
        '{"title":"a\\ud800b","nul":"x\\u0000y","low":["\\udc00"],"k\\ud800":1,"pair":"\\ud83d\\ude00","path":"C:\\\\u0000"}',
      )
    }
    if (req.url!.startsWith('/acct/api/chunked')) {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
      res.write('{"name":"caf')
      setTimeout(() => res.end('é ☕","n":1}'), 5)
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ ok: true }))
  })
  platformUrl = await listen(platform)
})
afterAll(() => {
  for (const res of stalled) res.destroy()
  platform?.close()
  elsewhere?.close()
})

const clientOptions = () => ({
  baseUrl: `${platformUrl}/acct`,
  pathPrefix: '/api/',
  authorize: async () => ({ authorization: 'Bearer platform-token' }),
  rateLimit: { defaultRetryAfterSeconds: 1 },
  budget: {
    budget: new RateBudget(new MemoryBudgetStore()),
    windows: [{ key: 'k', limit: Number.POSITIVE_INFINITY, windowMs: 0 }],
    agentId: 'test',
  },
  toError: (r: { status: number }) => new AppError('upstream_error', `status ${r.status}`),
})
const client = () => createApiClient(clientOptions())

describe('host-pinned API client', () => {
  it('sends relative paths to the account base with its own auth, overriding any caller header', async () => {
    const res = await client().request({
      method: 'GET',
      path: '/api/things?x=1',
      headers: { authorization: 'Bearer caller' },
    })
    expect(res.status).toBe(200)
    expect(seen.at(-1)).toEqual({ url: '/acct/api/things?x=1', authorization: 'Bearer platform-token' })
  })

  it('keeps an answer holding NUL or a lone surrogate, each turned into U+FFFD, so a run can store it (issue 22)', async () => {
    const res = await client().request({ method: 'GET', path: '/api/unstorable' })
    expect(res.body).toEqual({
      title: 'a\ufffdb',
      nul: 'x\ufffdy',
      low: ['\ufffd'],
      'k\ufffd': 1,
      pair: '😀',
      path: 'C:\\u0000',
    })
  })

  it('does not follow redirects: the 3xx comes back as the answer', async () => {
    const res = await client().request({ method: 'GET', path: '/api/redirect' })
    expect(res.status).toBe(302)
    expect(elsewhereHits).toBe(0)
  })

  it('refuses an answer larger than the bound instead of buffering it', async () => {
    await expect(client().request({ method: 'GET', path: '/api/huge' })).rejects.toMatchObject({
      code: 'upstream_error',
    })
  })

  it('refuses an answer that declares a length over the bound without waiting for its body', async () => {
    await expect(client().request({ method: 'GET', path: '/api/declared-huge' })).rejects.toMatchObject({
      code: 'upstream_error',
      message: expect.stringContaining('larger than'),
    })
  })

  it('joins a body that arrives in pieces, multi-byte characters included', async () => {
    const res = await client().request({ method: 'GET', path: '/api/chunked' })
    expect(res).toMatchObject({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: { name: 'café ☕', n: 1 },
    })
  })

  it('says the platform could not be reached when nothing listens', async () => {
    const closed = http.createServer()
    const url = await listen(closed)
    await new Promise((resolve) => closed.close(resolve))
    const unreachable = createApiClient({ ...clientOptions(), baseUrl: `${url}/acct` })
    await expect(unreachable.get('/api/things')).rejects.toMatchObject({
      code: 'upstream_error',
      message: expect.stringContaining('ECONNREFUSED'),
    })
  })

  it('refuses a path outside the prefix before sending anything', async () => {
    const before = seen.length
    await expect(client().get('/other/x')).rejects.toMatchObject({ code: 'invalid_input' })
    expect(seen.length).toBe(before)
  })
})

describe('the deadline of one exchange', () => {
  it.each([
    ['never answers', '/api/silent'],
    ['trickles its answer for ever', '/api/trickle'],
  ])('a platform that %s gets a clear upstream timeout, not a hang', async (_what, path) => {
    const api = createApiClient({ ...clientOptions(), timeoutMs: 300 })
    const err = await api.request({ method: 'GET', path }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(AppError)
    expect(err).toMatchObject({ code: 'upstream_error', message: 'the platform did not answer within 0.3 s' })
  })
})
