import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from './index.ts'
import { call, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
let token: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
beforeEach(async () => {
  await sandbox.control('/reset', { method: 'POST' })
  token = await sandbox.token()
})
afterAll(() => sandbox.close())

const user = () => call(`${sandbox.url}/v2/user`, { token })

describe('rate limits', () => {
  it('every API response carries X-RateLimit-* (epoch-second reset); exceeding gives 429 rate_limited with Retry-After', async () => {
    await sandbox.control('/clock', { body: { set: 1_900_000_000_000 } })
    await sandbox.control('/rate-limits', { method: 'PUT', body: { limit: 3, window_ms: 60_000 } })
    const first = await user()
    expect(first.headers.get('x-ratelimit-limit')).toBe('3')
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2')
    expect(first.headers.get('x-ratelimit-reset')).toBe(String(1_900_000_020))
    await user()
    expect((await user()).headers.get('x-ratelimit-remaining')).toBe('0')
    const limited = await user()
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('20')
    expect(limited.body).toEqual({
      error: {
        code: 'rate_limited',
        message: expect.any(String),
        limit: { remaining: 0, reset: 1_900_000_020, resetMs: 1_900_000_020_000, total: 3 },
      },
    })
    // Per endpoint: another endpoint has its own budget.
    expect((await call(`${sandbox.url}/v9/projects`, { token })).status).toBe(200)
    // Per token.
    expect((await call(`${sandbox.url}/v2/user`, { token: await sandbox.token() })).status).toBe(200)
    // The window resets on the sandbox clock.
    await sandbox.advance(20_000)
    expect((await user()).status).toBe(200)
  })

  it('POST /v13/deployments has its own lower default; endpoints can be overridden; disabled drops limiting and headers', async () => {
    const config = await sandbox.control('/rate-limits')
    expect(config.body).toMatchObject({
      disabled: false,
      default: { limit: 100, window_ms: 60_000 },
      endpoints: { 'POST /v13/deployments': { limit: 100, window_ms: 3_600_000 } },
    })
    await sandbox.control('/rate-limits', {
      method: 'PUT',
      body: { endpoints: { 'POST /v13/deployments': { limit: 1, window_ms: 60_000 } } },
    })
    const make = () => call(`${sandbox.url}/v13/deployments`, { token, json: { name: 'ada-blog' } })
    expect((await make()).status).toBe(200)
    expect((await make()).status).toBe(429)
    expect((await user()).status).toBe(200)
    await sandbox.control('/rate-limits', { method: 'PUT', body: { disabled: true } })
    const free = await make()
    expect(free.status).toBe(200)
    expect(free.headers.get('x-ratelimit-limit')).toBeNull()
    const bad = await sandbox.control('/rate-limits', { method: 'PUT', body: { limit: -1 } })
    expect(bad.status).toBe(400)
  })
})

describe('faults', () => {
  it('injects a 5xx on a matching request, `times` times', async () => {
    await sandbox.control('/faults', {
      body: { status: 503, retry_after: 2, match: { method: 'GET', path: '/v2/user' }, times: 1 },
    })
    const failed = await user()
    expect(failed.status).toBe(503)
    expect(failed.headers.get('retry-after')).toBe('2')
    expect(failed.body.error.code).toBe('internal_server_error')
    expect((await user()).status).toBe(200)
    await sandbox.control('/faults', { body: { status: 500, match: { path: '/v9/projects' } } })
    expect((await user()).status).toBe(200)
    const five = await call(`${sandbox.url}/v9/projects`, { token })
    expect(five.body).toEqual({
      error: { code: 'internal_server_error', message: 'An unexpected internal error occurred' },
    })
    await sandbox.control('/faults', { method: 'DELETE' })
    expect((await call(`${sandbox.url}/v9/projects`, { token })).status).toBe(200)
  })

  it('forced 429, latency, dropped connections; the token endpoint is faultable; control is not', async () => {
    await sandbox.control('/faults', { body: { rate_limit: { retry_after: 7 }, times: 1 } })
    const limited = await user()
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('7')
    expect(limited.body.error.code).toBe('rate_limited')

    await sandbox.control('/faults', { body: { latency_ms: 150, times: 1 } })
    const started = Date.now()
    expect((await user()).status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)

    await sandbox.control('/faults', { body: { drop: true, times: 1 } })
    await expect(user()).rejects.toThrow()
    expect((await user()).status).toBe(200)

    await sandbox.control('/faults', {
      body: { status: 502, match: { path: '/v2/oauth/access_token' }, times: 1 },
    })
    expect((await call(`${sandbox.url}/v2/oauth/access_token`, { method: 'POST', body: '' })).status).toBe(
      502,
    )

    await sandbox.control('/faults', { body: { status: 500 } })
    expect((await sandbox.control('/faults')).status).toBe(200)
    const bad = await sandbox.control('/faults', { body: { status: 404 } })
    expect(bad.status).toBe(400)
  })
})

describe('request log', () => {
  it('records API requests with Authorization, cookies and secret query params redacted', async () => {
    await sandbox.control('/requests', { method: 'DELETE' })
    await call(`${sandbox.url}/v9/projects?teamId=${SEED.team.id}&code=abc&client_secret=s`, {
      token,
      headers: { cookie: 'a=b' },
    })
    await call(`${sandbox.url}/v2/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic c2VjcmV0' },
      body: 'client_secret=x',
    })
    const log = (await sandbox.control('/requests')).body.requests
    expect(log).toHaveLength(2)
    expect(log[0].path).toBe('/vercel/v9/projects')
    expect(log[0]).toMatchObject({
      method: 'GET',
      status: 200,
      query: { teamId: SEED.team.id, code: '[redacted]', client_secret: '[redacted]' },
    })
    expect(log[0].headers.authorization).toBe('Bearer [redacted]')
    expect(log[0].headers.cookie).toBe('[redacted]')
    expect(log[1].headers.authorization).toBe('Basic [redacted]')
    expect(JSON.stringify(log)).not.toContain(token)
    expect((await sandbox.control('/requests', { method: 'DELETE' })).status).toBe(204)
    expect((await sandbox.control('/requests')).body.requests).toEqual([])
  })
})

describe('control API', () => {
  it('creates users, teams with members, projects, deployments in a state, tokens', async () => {
    const u = await sandbox.control('/users', {
      body: { username: 'alan', name: 'Alan Turing', email: 'alan@vercel.test' },
    })
    expect(u.status).toBe(201)
    expect(u.body.id).toMatch(/^usr_/)
    const t = await sandbox.control('/teams', {
      body: { name: 'Bletchley', members: [{ user: 'alan', role: 'OWNER' }, 'ada'] },
    })
    expect(t.status).toBe(201)
    expect(t.body).toMatchObject({ id: expect.stringMatching(/^team_/), slug: 'bletchley' })
    const p = await sandbox.control('/projects', {
      body: { owner: 'bletchley', name: 'bombe', framework: 'vite' },
    })
    expect(p.status).toBe(201)
    expect(p.body.accountId).toBe(t.body.id)
    const d = await sandbox.control('/deployments', {
      body: { project: 'bombe', owner: 'bletchley', state: 'ERROR', creator: 'alan' },
    })
    expect(d.body).toMatchObject({ readyState: 'ERROR', ownerId: t.body.id, creator: { uid: u.body.id } })
    const teamToken = await sandbox.token('alan', t.body.id)
    const list = await call(`${sandbox.url}/v6/deployments?teamId=${t.body.id}`, { token: teamToken })
    expect(list.body.deployments.map((x: { uid: string }) => x.uid)).toEqual([d.body.id])
    const members = await call(`${sandbox.url}/v2/teams/${t.body.id}/members`, { token: teamToken })
    expect(
      members.body.members.map((m: { username: string; role: string }) => `${m.username}:${m.role}`).sort(),
    ).toEqual(['ada:MEMBER', 'alan:OWNER'])
    expect((await sandbox.control('/users', { body: { username: 'alan' } })).status).toBe(409)
    expect((await sandbox.control('/deployments', { body: { project: 'nope' } })).status).toBe(400)
    expect((await sandbox.control('/nope')).status).toBe(404)
  })

  it('clock: GET, advance, set; reset restores the seed', async () => {
    const before = (await sandbox.control('/clock')).body.now_ms
    const advanced = (await sandbox.control('/clock', { body: { advance_ms: 3_600_000 } })).body.now_ms
    expect(advanced - before).toBeGreaterThanOrEqual(3_600_000)
    const set = (await sandbox.control('/clock', { body: { set: 2_000_000_000_000 } })).body
    expect(set.now_ms).toBeGreaterThanOrEqual(2_000_000_000_000)
    expect(set.now).toMatch(/^2033-05-18T/)
    await call(`${sandbox.url}/v10/projects`, { token, json: { name: 'temp' } })
    await sandbox.control('/reset', { method: 'POST' })
    expect(Math.abs((await sandbox.control('/clock')).body.now_ms - Date.now())).toBeLessThan(5_000)
    const fresh = await sandbox.token()
    expect((await call(`${sandbox.url}/v9/projects/temp`, { token: fresh })).status).toBe(404)
    // Tokens minted before the reset are gone.
    expect((await user()).status).toBe(403)
  })

  it('seed: false starts empty', async () => {
    const empty = await startTestSandbox({ seed: false })
    try {
      expect((await empty.control('/tokens', { body: { user: 'ada' } })).status).toBe(400)
      expect(
        (await fetch(`${empty.url}/integrations/switchyard/new?redirect_uri=http://localhost:1/cb`)).status,
      ).toBe(404)
    } finally {
      await empty.close()
    }
  })
})
