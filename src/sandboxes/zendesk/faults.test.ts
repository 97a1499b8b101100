import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AGENT, basic, bearer, call, PASSWORD, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
let acme: string
const auth = basic(AGENT, PASSWORD)

beforeAll(async () => {
  sandbox = await startTestSandbox()
  acme = sandbox.base('acme')
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
})

describe('fault injection', () => {
  it('delays responses by latency_ms', async () => {
    await sandbox.control('/faults', { body: { latency_ms: 150, times: 1 } })
    const started = Date.now()
    const slow = await call(`${acme}/api/v2/tickets/1.json`, { auth })
    expect(slow.status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
  })

  it('answers an injected 5xx, with Retry-After when asked, `times` times', async () => {
    const created = await sandbox.control('/faults', { body: { status: 503, retry_after: 7, times: 2 } })
    expect(created.status).toBe(201)
    expect(created.body.id).toEqual(expect.any(String))
    for (let i = 0; i < 2; i++) {
      const failed = await call(`${acme}/api/v2/tickets.json`, { auth })
      expect(failed.status).toBe(503)
      expect(failed.headers.get('retry-after')).toBe('7')
    }
    expect((await call(`${acme}/api/v2/tickets.json`, { auth })).status).toBe(200)
  })

  it('drops the connection without an answer', async () => {
    await sandbox.control('/faults', { body: { drop: true, times: 1 } })
    await expect(fetch(`${acme}/api/v2/tickets.json`, { headers: { authorization: auth } })).rejects.toThrow()
    expect((await call(`${acme}/api/v2/tickets.json`, { auth })).status).toBe(200)
    const log = await sandbox.control('/requests?limit=2')
    expect(log.body.requests[0]).toMatchObject({ status: null, fault: 'drop' })
  })

  it('forces a 429 with the platform’s body and Retry-After', async () => {
    await sandbox.control('/faults', { body: { rate_limit: { retry_after: 30 }, times: 1 } })
    const limited = await call(`${acme}/api/v2/tickets.json`, { auth })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(limited.headers.get('retry-after')).toBe('30')
    expect(limited.headers.get('x-rate-limit-remaining')).toBe('0')
  })

  it('matches on method and path, and applies to the OAuth token endpoint', async () => {
    await sandbox.control('/faults', {
      body: { status: 500, match: { method: 'POST', path: '/oauth/tokens' } },
    })
    expect((await call(`${acme}/api/v2/tickets.json`, { auth })).status).toBe(200)
    const token = await call(`${acme}/oauth/tokens`, { json: { grant_type: 'client_credentials' } })
    expect(token.status).toBe(500)
    await sandbox.control('/faults', { body: { status: 502, match: { path: '/api/v2/users' } } })
    expect((await call(`${acme}/api/v2/users/me`, { auth })).status).toBe(502)
    expect((await call(`${acme}/api/v2/tickets`, { auth })).status).toBe(200)
  })

  it('never touches the control API or the authorize pages, and clears with DELETE', async () => {
    await sandbox.control('/faults', { body: { status: 500 } })
    expect((await sandbox.control('/faults')).body.faults).toHaveLength(1)
    const page = await fetch(
      `${acme}/oauth/authorizations/new?response_type=code&client_id=switchyard&redirect_uri=http://127.0.0.1:1/cb&scope=read`,
    )
    expect(page.status).toBe(200)
    expect((await call(`${acme}/api/v2/tickets`, { auth })).status).toBe(500)
    expect((await sandbox.control('/faults', { method: 'DELETE' })).status).toBe(204)
    expect((await call(`${acme}/api/v2/tickets`, { auth })).status).toBe(200)
  })

  it.each([{}, { status: 302 }, { latency_ms: -1 }, { drop: 'yes' }, { status: 500, times: 0 }])(
    'rejects the fault %j',
    async (body) => {
      expect((await sandbox.control('/faults', { body })).status).toBe(400)
    },
  )
})

describe('request log', () => {
  it.each(['access_token', 'client_secret', 'code', 'password'])(
    'redacts the %s query value, whatever the request',
    async (name) => {
      const secret = `s3cret-${name}`
      await call(`${acme}/api/v2/users/me.json?${name}=${secret}&${name}=${secret}2&per_page=1`, { auth })
      await call(`${acme}/oauth/authorizations/new?${name}=${secret}`)
      const log = (await sandbox.control('/requests?account=acme')).body.requests
      expect(log.map((entry: any) => entry.query[name])).toEqual([['[redacted]', '[redacted]'], '[redacted]'])
      expect(log[0].query.per_page).toBe('1')
      expect(JSON.stringify(log)).not.toContain(secret)
    },
  )

  it('records API and OAuth requests with the credentials of Authorization redacted', async () => {
    const token = await sandbox.token('acme', AGENT)
    await call(`${acme}/api/v2/tickets.json?per_page=1`, { auth: bearer(token) })
    await call(`${acme}/api/v2/users/me`, { auth, headers: { cookie: 'secret=1' } })
    await call(`${sandbox.base('globex')}/api/v2/users/me`)
    const log = await sandbox.control('/requests?account=acme')
    expect(log.body.requests).toHaveLength(2)
    const [first, second] = log.body.requests
    expect(first).toMatchObject({
      method: 'GET',
      path: '/zendesk/acme/api/v2/tickets.json',
      query: { per_page: '1' },
      account: 'acme',
      status: 200,
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    })
    expect(first.headers.authorization).toBe('Bearer [redacted]')
    expect(second.headers.authorization).toBe('Basic [redacted]')
    expect(second.headers.cookie).toBe('[redacted]')
    expect(JSON.stringify(log.body)).not.toContain(token)

    expect((await sandbox.control('/requests?limit=1')).body.requests[0].account).toBe('globex')
    expect((await sandbox.control('/requests', { method: 'DELETE' })).status).toBe(204)
    expect((await sandbox.control('/requests')).body.requests).toEqual([])
  })
})
