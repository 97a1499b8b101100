import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { Agent } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_ANSWER_BYTES, wholeAnswerFetch } from './whole-answer-fetch.ts'

// The model calls' fetch (whole-answer-fetch.ts) against a real HTTP server: what the caller reads
// is what fetch would have given it, and each difference it declares holds.

interface Seen {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: string
}

describe('wholeAnswerFetch', () => {
  let server: http.Server
  let base: string
  const seen: Seen[] = []
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        seen.push({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        })
        const path = req.url!.split('?')[0]
        if (path === '/json') {
          res.writeHead(201, 'Made', {
            'content-type': 'application/json',
            'x-request-id': 'req_1',
            'set-cookie': ['a=1', 'b=2'],
          })
          return res.end(JSON.stringify({ ok: true, text: 'é'.repeat(20_000) }))
        }
        if (path === '/empty') return res.writeHead(204).end()
        if (path === '/refused') {
          res.writeHead(400, { 'content-type': 'application/json' })
          return res.end('{"error":{"message":"tools[0] is invalid"}}')
        }
        if (path === '/moved') return res.writeHead(307, { location: '/json' }).end()
        if (path === '/gzip') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          return res.end(gzipSync('{"ok":true}'))
        }
        if (path === '/slow') return setTimeout(() => res.end('late'), 5_000)
        if (path === '/held') return // answered never: afterAll closes its connection
        if (path === '/endless') {
          res.writeHead(200, { 'content-type': 'application/json' })
          const block = Buffer.alloc(64 * 1024, 'a')
          const more = () => {
            while (!res.destroyed && res.write(block));
            if (!res.destroyed) res.once('drain', more)
          }
          return more()
        }
        if (path === '/cut') return req.socket.destroy()
        res.writeHead(404).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const fetchWhole = wholeAnswerFetch()

  it('sends the method, headers and body, and hands over status, headers and the whole body', async () => {
    const response = await fetchWhole(`${base}/json?x=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', authorization: 'Bearer sk-test' },
      body: '{"model":"m"}',
    })
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      url: '/json?x=1',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer sk-test',
        'accept-encoding': 'identity',
      },
      body: '{"model":"m"}',
    })
    expect(response).toBeInstanceOf(Response)
    expect([response.status, response.statusText, response.ok]).toEqual([201, 'Made', true])
    expect(response.headers.get('x-request-id')).toBe('req_1')
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
    expect(await response.json()).toEqual({ ok: true, text: 'é'.repeat(20_000) })
  })

  it('takes headers as a Headers object or pairs too', async () => {
    await fetchWhole(`${base}/json`, { headers: new Headers({ 'X-One': '1' }) })
    expect(seen.at(-1)!.headers['x-one']).toBe('1')
    await fetchWhole(`${base}/json`, { headers: [['X-Two', '2']] })
    expect(seen.at(-1)!.headers['x-two']).toBe('2')
  })

  it('asks for the answer uncompressed even when the caller asked otherwise', async () => {
    await fetchWhole(`${base}/json`, { headers: { 'Accept-Encoding': 'gzip, br' } })
    expect(seen.at(-1)!.headers['accept-encoding']).toBe('identity')
  })

  it.each([
    ['a refusal, with its body', '/refused', 400, '{"error":{"message":"tools[0] is invalid"}}'],
    ['no content, with no body', '/empty', 204, ''],
    ['a redirect, not followed', '/moved', 307, ''],
  ])('hands over %s', async (_, path, status, text) => {
    const response = await fetchWhole(`${base}${path}`, { method: 'POST', body: '{}' })
    expect(response.status).toBe(status)
    expect(await response.text()).toBe(text)
    if (status === 307) expect(response.headers.get('location')).toBe('/json')
  })

  it.each([
    ['an answer compressed though none was asked for', '/gzip', /compressed \(gzip\)/],
    ['a connection cut before the answer', '/cut', /./],
    ['an answer that does not end', '/endless', new RegExp(`larger than ${MAX_ANSWER_BYTES} bytes`)],
  ])('fails as fetch does on %s: TypeError("fetch failed") with the cause', async (_, path, cause) => {
    const failure = await fetchWhole(`${base}${path}`).catch((err: unknown) => err)
    expect(failure).toBeInstanceOf(TypeError)
    expect((failure as TypeError).message).toBe('fetch failed')
    expect(String((failure as TypeError).cause)).toMatch(cause)
  })

  it('fails as fetch does when nothing listens', async () => {
    const failure = await fetchWhole('http://127.0.0.1:1/none').catch((err: unknown) => err)
    expect(failure).toBeInstanceOf(TypeError)
    expect((failure as any).cause.code).toBe('ECONNREFUSED')
  })

  it("rejects with the signal's reason when aborted, as fetch does", async () => {
    const reason = new DOMException('the run was cancelled', 'AbortError')
    const controller = new AbortController()
    const call = fetchWhole(`${base}/slow`, { signal: controller.signal })
    setTimeout(() => controller.abort(reason), 50)
    await expect(call).rejects.toBe(reason)
  })

  it("rejects with the signal's reason while the request still waits for a connection", async () => {
    // One connection, held by an answer that never comes: the second call waits in undici's queue,
    // not on a socket, and would wait for ever if only a request on a socket could be aborted.
    const single = new Agent({ connections: 1 })
    const queued = wholeAnswerFetch(() => single)
    try {
      const jsonSeen = () => seen.filter((request) => request.url === '/json').length
      const before = jsonSeen()
      void queued(`${base}/held`).catch(() => undefined)
      const reason = new DOMException('the run was cancelled', 'AbortError')
      const controller = new AbortController()
      const call = queued(`${base}/json`, { signal: controller.signal })
      setTimeout(() => controller.abort(reason), 50)
      await expect(call).rejects.toBe(reason)
      expect(jsonSeen()).toBe(before)
    } finally {
      await single.destroy()
    }
  })

  it('refuses a body or a Request it does not send as given, before sending anything', async () => {
    const before = seen.length
    await expect(fetchWhole(`${base}/json`, { method: 'POST', body: new FormData() })).rejects.toThrow(
      /string or bytes/,
    )
    await expect(fetchWhole(new Request(`${base}/json`, { method: 'DELETE' }))).rejects.toThrow(
      /not a Request/,
    )
    // A header HTTP cannot carry fails as fetch does, and nothing is sent.
    const badHeader = await fetchWhole(`${base}/json`, { headers: { 'x-bad': 'a\nb' } }).catch((err) => err)
    expect(badHeader).toBeInstanceOf(TypeError)
    expect(String(badHeader.cause)).toMatch(/invalid x-bad header/)
    expect(seen.length).toBe(before)
  })

  it('goes through the dispatcher it is given for the address', async () => {
    const asked: string[] = []
    const limited = wholeAnswerFetch((url) => {
      asked.push(url)
      throw new Error(`refused: ${url}`)
    })
    await expect(limited(`${base}/json`)).rejects.toThrow(`refused: ${base}/json`)
    expect(asked).toEqual([`${base}/json`])
  })
})
