import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { PLAN_REQUESTS_PER_MINUTE } from './model.ts'
import { basic, call, PASSWORD, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
  // Start each test at the beginning of a window so the window cannot roll over mid-test.
  const { body } = await sandbox.control('/clock')
  await sandbox.control('/clock', { body: { advance_ms: 60_000 - (body.now_ms % 60_000) } })
})

const globexAuth = basic('admin@globex.test', PASSWORD)

describe('rate limits', () => {
  it('sends the limit headers on every API response, errors included', async () => {
    const ok = await call(`${sandbox.base('acme')}/api/v2/users/me.json`)
    expect(ok.headers.get('x-rate-limit')).toBe('700')
    expect(ok.headers.get('x-rate-limit-remaining')).toBe('699')
    expect(ok.headers.get('ratelimit-limit')).toBe('700')
    expect(ok.headers.get('ratelimit-remaining')).toBe('699')
    expect(Number(ok.headers.get('ratelimit-reset'))).toBeGreaterThan(0)
    const unauthorized = await call(`${sandbox.base('acme')}/api/v2/tickets.json`)
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get('x-rate-limit-remaining')).toBe('698')
  })

  it('uses the plan’s requests per minute', () => {
    expect(PLAN_REQUESTS_PER_MINUTE).toEqual({
      team: 200,
      growth: 400,
      professional: 400,
      enterprise: 700,
      high_volume: 2500,
    })
  })

  it('answers 429 text/plain with Retry-After past the team plan’s 200 per minute, and recovers next window', async () => {
    const url = `${sandbox.base('globex')}/api/v2/users/me.json`
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () => call(url, { auth: globexAuth }).then((r) => r.status)),
    )
    expect(statuses.every((s) => s === 200)).toBe(true)

    const limited = await call(url, { auth: globexAuth })
    expect(limited.status).toBe(429)
    expect(limited.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(limited.text).toBe('Number of allowed API requests per minute exceeded')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(limited.headers.get('x-rate-limit')).toBe('200')
    expect(limited.headers.get('x-rate-limit-remaining')).toBe('0')

    // Another account has its own budget.
    expect((await call(`${sandbox.base('acme')}/api/v2/users/me.json`)).status).toBe(200)

    await sandbox.control('/clock', {
      body: { advance_ms: Number(limited.headers.get('retry-after')) * 1000 },
    })
    const after = await call(url, { auth: globexAuth })
    expect(after.status).toBe(200)
    expect(after.headers.get('x-rate-limit-remaining')).toBe('199')
  })

  it('honours a per-account override from the control API and counts down Retry-After', async () => {
    const patched = await sandbox.control('/accounts/acme', {
      method: 'PATCH',
      body: { rate_limit_per_minute: 2 },
    })
    expect(patched.body.account.rate_limit_per_minute).toBe(2)
    const url = `${sandbox.base('acme')}/api/v2/users/me`
    await call(url)
    await call(url)
    await sandbox.control('/clock', { body: { advance_ms: 20_000 } })
    const limited = await call(url)
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('40')
  })

  it('does not limit the OAuth pages or the control API', async () => {
    await sandbox.control('/accounts/acme', { method: 'PATCH', body: { rate_limit_per_minute: 1 } })
    await call(`${sandbox.base('acme')}/api/v2/users/me`)
    expect((await call(`${sandbox.base('acme')}/api/v2/users/me`)).status).toBe(429)
    const page = await fetch(
      `${sandbox.base('acme')}/oauth/authorizations/new?response_type=code&client_id=switchyard&redirect_uri=http://127.0.0.1:1/cb&scope=read`,
    )
    expect(page.status).toBe(200)
    expect((await sandbox.control('/accounts')).status).toBe(200)
  })
})
