import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'

// One access line per request a person or agent made; machines' polls of /health and /metrics write
// none while they succeed, so a scraper every few seconds does not bury the lines people read.
const lines: string[] = []
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(String(chunk))
    done()
  },
})
let stack: TestStack

beforeAll(async () => {
  stack = await startTestStack({ logDestination: sink })
})
afterAll(async () => stack?.close())

const accessLines = (url: string) =>
  lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request completed' && l.req?.url === url)

describe('the access log', () => {
  it('writes a line for an API request but none for successful health checks and metric scrapes', async () => {
    await client(stack, stack.apiKey).get('/v1/tools')
    for (let i = 0; i < 3; i++) {
      await fetch(`${stack.url}/health`)
      await fetch(`${stack.url}/metrics`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(accessLines('/v1/tools')).toHaveLength(1)
    expect(accessLines('/health')).toHaveLength(0)
    expect(accessLines('/metrics')).toHaveLength(0)
  })

  it('still logs a refused scrape', async () => {
    await fetch(`${stack.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7' } })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(accessLines('/metrics').map((l) => l.res.statusCode)).toEqual([403])
  })
  it("masks a webhook's intake address: its token never reaches the log", async () => {
    const token = 'Tk0123456789abcdefghijAB'
    await fetch(`${stack.url}/hooks/${token}`, { method: 'POST', body: '{}' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(lines.join('')).not.toContain(token)
    expect(accessLines('/hooks/[redacted]').length).toBeGreaterThan(0)
  })
})
