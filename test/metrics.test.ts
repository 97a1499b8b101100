import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RateBudget } from '../src/core/limits/budget.ts'
import { MemoryBudgetStore } from '../src/core/limits/budget-memory.ts'
import { noMetrics, type Metrics } from '../src/core/metrics.ts'
import { buildApp } from '../src/server/app.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, zendeskControl } from './helpers/stack.ts'

let stack: TestStack
let integration: string
let webDist: string
const INDEX_HTML = '<!doctype html><title>Switchyard</title><div id="root"></div>'

beforeAll(async () => {
  // A stand-in build of the web app: what matters here is which paths get its index.html.
  webDist = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-web-'))
  fs.writeFileSync(path.join(webDist, 'index.html'), INDEX_HTML)
  stack = await startTestStack({ webDist })
  integration = (await connectZendesk(stack)).integrationId!
})
afterAll(async () => {
  await stack?.close()
  fs.rmSync(webDist, { recursive: true, force: true })
})

async function scrape(headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.url}/metrics`, { headers })
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() }
}

/** The value of one sample line, e.g. `switchyard_tool_calls_total{…}`; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)))
  return line ? Number(line.split(' ').at(-1)) : 0
}

describe('/metrics counts what operators watch', () => {
  it('tool calls, their latency and errors by code move after real runs against the sandbox', async () => {
    const api = client(stack, stack.apiKey)
    const before = (await scrape()).text
    const created = await api.run('zendesk.create_ticket', integration, {
      subject: 'Printer on fire',
      description: 'Smoke',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const missing = await api.run('zendesk.get_ticket', integration, { ticket_id: 987654 })
    expect(missing.status).toBe(404)

    const { status, type, text } = await scrape()
    expect(status).toBe(200)
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/)
    const ok = { tool: 'zendesk.create_ticket', platform: 'zendesk', outcome: 'ok' }
    expect(sample(text, 'switchyard_tool_calls_total', ok)).toBe(
      sample(before, 'switchyard_tool_calls_total', ok) + 1,
    )
    const notFound = { tool: 'zendesk.get_ticket', platform: 'zendesk', outcome: missing.body.code }
    expect(sample(text, 'switchyard_tool_calls_total', notFound)).toBe(
      sample(before, 'switchyard_tool_calls_total', notFound) + 1,
    )
    const count = { tool: 'zendesk.create_ticket', platform: 'zendesk' }
    expect(sample(text, 'switchyard_tool_call_duration_seconds_count', count)).toBe(
      sample(before, 'switchyard_tool_call_duration_seconds_count', count) + 1,
    )
    expect(sample(text, 'switchyard_errors_total', { code: missing.body.code })).toBeGreaterThan(
      sample(before, 'switchyard_errors_total', { code: missing.body.code }),
    )
    // The default process metrics come along.
    expect(text).toMatch(/^process_cpu_user_seconds_total /m)
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m)
  })

  it('a 429 the platform answers is waited out, and the wait is counted with its seconds', async () => {
    const api = client(stack, stack.apiKey)
    const ticket = (await api.run('zendesk.create_ticket', integration, { subject: 's', description: 'd' }))
      .body.output.id
    const before = (await scrape()).text
    await zendeskControl(stack).fault({
      rate_limit: { retry_after: 1 },
      match: { method: 'GET', path: `/api/v2/tickets/${ticket}` },
      times: 1,
    })
    expect((await api.run('zendesk.get_ticket', integration, { ticket_id: ticket })).status).toBe(200)
    const { text } = await scrape()
    const granted = { platform: 'zendesk', outcome: 'granted' }
    expect(sample(text, 'switchyard_rate_limit_waits_total', granted)).toBe(
      sample(before, 'switchyard_rate_limit_waits_total', granted) + 1,
    )
    expect(sample(text, 'switchyard_rate_limit_wait_seconds_total', { platform: 'zendesk' })).toBeGreaterThan(
      sample(before, 'switchyard_rate_limit_wait_seconds_total', { platform: 'zendesk' }),
    )
  })

  it('an unknown tool id is not a label: what a caller types never becomes a series', async () => {
    const res = await client(stack, stack.apiKey).run('zendesk.no_such_step_x9', integration, {})
    expect(res.status).toBe(404)
    expect((await scrape()).text).not.toContain('no_such_step_x9')
  })

  it('holds no tenant data: no account name, user, integration id, email or secret', async () => {
    const { text } = await scrape()
    const integrations = (await client(stack, stack.apiKey).get('/v1/integrations')).body
    const rows: Array<{ id: string; account_name: string }> = integrations.integrations ?? integrations
    expect(rows.length).toBeGreaterThan(0)
    for (const secret of [
      stack.apiKey,
      stack.userId,
      ...rows.flatMap((r) => [r.id, r.account_name]),
      'acme',
      '@',
      'sy_',
    ]) {
      expect(text).not.toContain(secret)
    }
  })

  it('a rate-limit wait is counted with its seconds, and a wait that runs out as rate_limited', async () => {
    const seen: Array<[string, string, number]> = []
    const recorder: Metrics = {
      ...noMetrics,
      rateLimitWait: (platform, outcome, seconds) => {
        seen.push([platform, outcome, seconds])
      },
    }
    const budget = new RateBudget(new MemoryBudgetStore(), recorder)
    const window = { key: 'k', limit: 1, windowMs: 100 }
    await budget.take([window], 'a', { kind: 'wait', maxWaitMs: 5_000 }, 'zendesk')
    expect(seen).toEqual([]) // nothing waited
    await budget.take([window], 'a', { kind: 'wait', maxWaitMs: 5_000 }, 'zendesk')
    expect(seen).toEqual([['zendesk', 'granted', expect.any(Number)]])
    expect(seen[0][2]).toBeGreaterThan(0)
    await expect(budget.take([window], 'a', { kind: 'wait', maxWaitMs: 0 }, 'zendesk')).rejects.toMatchObject(
      { code: 'rate_limited' },
    )
    expect(seen[1]).toEqual(['zendesk', 'rate_limited', expect.any(Number)])
  })
})

describe('who may read /metrics', () => {
  it('without SWITCHYARD_METRICS_TOKEN: a scraper on loopback, not a proxied or remote caller', async () => {
    expect((await scrape()).status).toBe(200)
    const proxied = await scrape({ 'x-forwarded-for': '203.0.113.9' })
    expect(proxied.status).toBe(403)
    expect(proxied.type).toContain('application/problem+json')
    expect(JSON.parse(proxied.text).detail).toContain('SWITCHYARD_METRICS_TOKEN')
    const app = await buildApp(stack.services)
    try {
      const remote = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '198.51.100.7' })
      expect(remote.statusCode).toBe(403)
    } finally {
      await app.close()
    }
  })

  it('with SWITCHYARD_METRICS_TOKEN: only a caller who sends it as a Bearer token, from anywhere', async () => {
    const app = await buildApp({
      ...stack.services,
      config: { ...stack.services.config, metricsToken: 'metrics-secret-1' },
    })
    try {
      const ask = (authorization?: string, remoteAddress = '198.51.100.7') =>
        app.inject({
          method: 'GET',
          url: '/metrics',
          remoteAddress,
          headers: authorization ? { authorization } : {},
        })
      for (const wrong of [
        undefined,
        'Bearer metrics-secret-2',
        'Bearer metrics-secret-1x',
        'Basic bWV0cmljcy1zZWNyZXQtMQ==',
        `Bearer ${stack.apiKey}`,
      ]) {
        const res = await ask(wrong)
        expect(res.statusCode, String(wrong)).toBe(401)
        expect(res.body).not.toContain('metrics-secret-1')
      }
      expect((await ask(undefined, '127.0.0.1')).statusCode).toBe(401) // the token, once set, is asked of everyone
      const ok = await ask('Bearer metrics-secret-1')
      expect(ok.statusCode).toBe(200)
      expect(ok.body).toContain('switchyard_tool_calls_total')
    } finally {
      await app.close()
    }
  })
})

describe('unknown machine paths answer a JSON 404, never the web app page', () => {
  const machinePaths = [
    '/docs/tools',
    '/docs/tools.md/x',
    '/mcp/sse',
    '/mcp-foo',
    '/v1/nope',
    '/v1',
    '/v1/tools/x/y/z',
    '/oauth/nope',
    '/openapi',
    '/openapi.yaml',
    '/openapi.json/x',
    '/healthz',
    '/health/ready',
    '/metrics/x',
    '/.well-known/oauth-authorization-server',
    '/assets/missing.js',
    // /mcp itself is the MCP endpoint (docs/mcp.md), which answers in its own protocol; /docs and
    // its pages are the manual (test/docs-pages.test.ts).
  ]
  for (const p of machinePaths) {
    it(`GET ${p}`, async () => {
      // Signed in, so that /v1 answers for the path rather than for the missing key.
      const res = await fetch(`${stack.url}${p}`, {
        headers: { accept: 'text/html,*/*', authorization: `Bearer ${stack.apiKey}` },
      })
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toContain('application/problem+json')
      expect(await res.json()).toMatchObject({ code: 'not_found' })
    })
  }

  it("the web app's pages, and unknown pages it explains itself, still get index.html", async () => {
    for (const p of [
      '/',
      '/login',
      '/tools',
      '/integrations',
      '/settings/keys',
      '/some/page',
      '/documents',
      '/metricsboard',
    ]) {
      const res = await fetch(`${stack.url}${p}`)
      expect(res.status, p).toBe(200)
      expect(await res.text(), p).toBe(INDEX_HTML)
    }
  })

  it('the machine paths that exist answer their own content', async () => {
    expect(await (await fetch(`${stack.url}/health`)).json()).toEqual({ ok: true })
    expect((await fetch(`${stack.url}/openapi.json`)).headers.get('content-type')).toContain(
      'application/json',
    )
    expect((await scrape()).type).toMatch(/^text\/plain/)
  })
})
