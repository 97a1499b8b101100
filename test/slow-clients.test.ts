import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// A client that sends its request slowly is dropped: otherwise a few hundred trickling connections
// hold the service's sockets and memory for as long as they like. Small configured deadlines keep
// the test short; the test waits for the service to close the connection, however long that takes.
let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack({ config: { requestTimeoutMs: 800, headersTimeoutMs: 400 } })
})
afterAll(async () => {
  await stack?.close()
})

/**
 * Opens a connection, sends `head`, then one more byte of `drip` every 25 ms for as long as the
 * service keeps the connection open. Resolves with what the service answered once it closed it, or
 * with 'still open' if it never did within 400 bytes (ten seconds, far beyond the deadlines).
 *
 * Nothing here assumes how fast either side runs on a loaded machine. The drip starts once the
 * connection is up and `head` is written: a byte written before 'connect' is queued ahead of `head`,
 * and the service rightly answers 400 to a request line starting with it. And a drip the service
 * had not read when it closed the connection, or one written after the close but before this side
 * read it, makes the service's kernel answer with a reset: the read fails with ECONNRESET or the
 * write with EPIPE (the answer already read stays read). Those errors are how TCP reports
 * the close this test waits for, so they end the connection like 'close' does, with the answer read
 * before them.
 */
function trickle(head: string, drip: string): Promise<string> {
  const { port } = new URL(stack.url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1')
    let answer = ''
    let sent = 0
    let timer: NodeJS.Timeout | undefined
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => {
      answer += chunk
    })
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err)
    })
    socket.on('connect', () => {
      socket.write(head)
      timer = setInterval(() => {
        if (sent >= 400) {
          answer = 'still open'
          socket.destroy()
          return
        }
        if (!socket.writable) return
        socket.write(drip[sent % drip.length])
        sent++
      }, 25)
    })
    socket.on('close', () => {
      clearInterval(timer)
      resolve(answer)
    })
  })
}

describe('slow clients are dropped', () => {
  it('twenty connections trickling a request body are each answered 408 and closed', async () => {
    const head = [
      'POST /v1/api-keys HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${stack.apiKey}`,
      'Content-Type: application/json',
      'Content-Length: 100000',
      '',
      '',
    ].join('\r\n')
    const answers = await Promise.all(Array.from({ length: 20 }, () => trickle(head, '{"name":"slow"}')))
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 408 /)
    // Nothing half-sent was acted on.
    const keys = await fetch(`${stack.url}/v1/api-keys`, {
      headers: { authorization: `Bearer ${stack.apiKey}` },
    })
    expect((await keys.json()).api_keys.map((k: { name: string }) => k.name)).not.toContain('slow')
  })

  it('a connection trickling its headers is answered 408 and closed', async () => {
    const answer = await trickle('GET /health HTTP/1.1\r\n', 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n')
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('a request sent at once is not affected', async () => {
    const response = await fetch(`${stack.url}/health`)
    expect(response.status).toBe(200)
  })
})
