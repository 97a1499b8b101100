import Fastify from 'fastify'
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { zendeskSandbox } from './index.ts'
import { basic, bearer, call, PASSWORD, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

describe('control API', () => {
  it('creates accounts, users, tokens and API tokens', async () => {
    const account = await sandbox.control('/accounts', { body: { subdomain: 'initrode', plan: 'growth' } })
    expect(account.status).toBe(201)
    expect(account.body.account).toMatchObject({
      subdomain: 'initrode',
      plan: 'growth',
      rate_limit_per_minute: 400,
      url: sandbox.base('initrode'),
    })
    expect((await sandbox.control('/accounts', { body: { subdomain: 'initrode' } })).status).toBe(409)
    expect((await sandbox.control('/accounts', { body: { subdomain: 'Bad_Name' } })).status).toBe(400)
    expect((await sandbox.control('/accounts', { body: { subdomain: '_control' } })).status).toBe(400)

    const user = await sandbox.control('/accounts/initrode/users', {
      body: { name: 'Ian', email: 'ian@initrode.test', role: 'admin', password: 'pw' },
    })
    expect(user.status).toBe(201)
    expect(user.body.user).toMatchObject({
      name: 'Ian',
      role: 'admin',
      url: expect.stringContaining(`${sandbox.base('initrode')}/api/v2/users/`),
    })
    expect(
      (await call(`${sandbox.base('initrode')}/api/v2/users/me`, { auth: basic('ian@initrode.test', 'pw') }))
        .body.user.name,
    ).toBe('Ian')

    const minted = await sandbox.control('/accounts/initrode/tokens', {
      body: { user_id: user.body.user.id, scopes: ['read'], expires_in: 60 },
    })
    expect(minted.status).toBe(201)
    expect(minted.body).toMatchObject({
      token_type: 'bearer',
      scope: 'read',
      expires_in: 60,
      refresh_token: expect.any(String),
    })
    expect(
      (await call(`${sandbox.base('initrode')}/api/v2/tickets`, { auth: bearer(minted.body.access_token) }))
        .status,
    ).toBe(200)

    const apiToken = await sandbox.control('/accounts/initrode/api_tokens', { body: { description: 'ci' } })
    expect(apiToken.body.api_token).toMatchObject({
      token: expect.stringMatching(/^[A-Za-z0-9]{40}$/),
      description: 'ci',
      active: true,
    })
    expect((await sandbox.control('/accounts/nobody/users', { body: {} })).status).toBe(404)
  })

  it('registers OAuth clients and refuses bad ones', async () => {
    const created = await sandbox.control('/oauth_clients', {
      body: { identifier: 'app', secret: 's', redirect_uris: ['https://app.example/cb'] },
    })
    expect(created.status).toBe(201)
    expect(created.body.client).toMatchObject({
      identifier: 'app',
      kind: 'confidential',
      redirect_uris: ['https://app.example/cb'],
    })
    expect(
      (
        await sandbox.control('/oauth_clients', {
          body: { identifier: 'app', secret: 's', redirect_uris: ['https://x/cb'] },
        })
      ).status,
    ).toBe(409)
    expect(
      (
        await sandbox.control('/oauth_clients', {
          body: { identifier: 'nosecret', redirect_uris: ['https://x/cb'] },
        })
      ).status,
    ).toBe(400)
    expect(
      (
        await sandbox.control('/oauth_clients', {
          body: { identifier: 'nouris', secret: 's', redirect_uris: [] },
        })
      ).status,
    ).toBe(400)
    const clients = await sandbox.control('/oauth_clients')
    expect(clients.body.clients.map((c: { identifier: string }) => c.identifier)).toEqual([
      'switchyard',
      'app',
    ])
  })

  it('moves the clock and resets to the seed', async () => {
    const before = (await sandbox.control('/clock')).body.now_ms
    const moved = await sandbox.control('/clock', { body: { advance_ms: 3_600_000 } })
    expect(moved.body.now_ms - before).toBeGreaterThanOrEqual(3_600_000)
    const set = await sandbox.control('/clock', { body: { now: '2030-01-01T00:00:00Z' } })
    expect(set.body.now).toMatch(/^2030-01-01T00:00:00/)
    expect((await sandbox.control('/clock', { body: {} })).status).toBe(400)

    const reset = await sandbox.control('/reset', { body: {} })
    expect(reset.status).toBe(200)
    const accounts = (await sandbox.control('/accounts')).body.accounts.map(
      (a: { subdomain: string }) => a.subdomain,
    )
    expect(accounts).toEqual(['acme', 'globex'])
    expect(Math.abs((await sandbox.control('/clock')).body.now_ms - Date.now())).toBeLessThan(5_000)
  })

  it('answers unknown control routes with 404 and wrong methods with 405', async () => {
    expect((await sandbox.control('/nothing')).status).toBe(404)
    expect((await sandbox.control('/reset')).status).toBe(405)
  })
})

describe('seed', () => {
  it('has acme (enterprise) and globex (team) with their users', async () => {
    const acme = (await sandbox.control('/accounts/acme')).body.account
    expect(acme.plan).toBe('enterprise')
    expect(
      acme.users.map(
        (u: { email: string; role: string; name: string }) => `${u.name} <${u.email}> ${u.role}`,
      ),
    ).toEqual([
      'Ada Admin <admin@acme.test> admin',
      'Alan Agent <agent@acme.test> agent',
      'Carla Customer <customer@acme.test> end-user',
      'Erin Enduser <erin@umbrella.test> end-user',
    ])
    expect(acme.ticket_count).toBe(6)
    const globex = (await sandbox.control('/accounts/globex')).body.account
    expect(globex.plan).toBe('team')
    expect(globex.users[0].email).toBe('admin@globex.test')
  })

  it('can start empty', async () => {
    const empty = await startTestSandbox({ seed: false })
    try {
      expect((await empty.control('/accounts')).body.accounts).toEqual([])
      expect((await empty.control('/oauth_clients')).body.clients).toEqual([])
    } finally {
      await empty.close()
    }
  })
})

function getWithHost(
  url: string,
  host: string,
  authorization: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host, authorization } }, (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('addressing', () => {
  it('selects the account from a {subdomain}.zendesk.com or .localhost Host header, and builds URLs on it', async () => {
    const url = new URL(sandbox.url)
    for (const host of ['acme.zendesk.com', `acme.localhost:${url.port}`]) {
      const response = await getWithHost(
        `${sandbox.url}/api/v2/tickets/1.json`,
        host,
        basic('agent@acme.test', PASSWORD),
      )
      expect(response.status).toBe(200)
      expect(response.body.ticket.url).toBe(`http://${host}/zendesk/api/v2/tickets/1.json`)
    }
  })

  it('serves the plugin inside a host app without disturbing its JSON parsing', async () => {
    const app = Fastify()
    app.post('/echo', async (request) => ({ got: request.body }))
    await app.register(zendeskSandbox(), { prefix: '/zendesk' })
    await app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
      const echo = await call(`${origin}/echo`, { json: { a: 1 } })
      expect(echo.body).toEqual({ got: { a: 1 } })
      const me = await call(`${origin}/zendesk/acme/api/v2/users/me.json`, {
        auth: basic('admin@acme.test', PASSWORD),
      })
      expect(me.body.user.url).toBe(`${origin}/zendesk/acme/api/v2/users/${me.body.user.id}.json`)
      const created = await call(`${origin}/zendesk/acme/api/v2/tickets`, {
        auth: basic('admin@acme.test', PASSWORD),
        json: { ticket: { subject: 'via host', comment: { body: 'x' } } },
      })
      expect(created.status).toBe(201)
    } finally {
      await app.close()
    }
  })
})
