import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../bench/processes.ts'
import { loadConfig } from '../src/core/config.ts'
import { openStore } from '../src/core/store/database.ts'
import { scratchDatabase } from './helpers/scratch-database.ts'
import { startService, type RunningService } from '../src/server/app.ts'
import { BrowserLike } from './helpers/browser-like.ts'

// Production never runs on a sandbox by accident (docs/architecture.md, "Live, sandbox, not configured").
const BIN = path.resolve(import.meta.dirname, '../bin/switchyard.js')
const KEY = '22'.repeat(32)

async function startProduction(
  extraEnv: Record<string, string>,
): Promise<{ running: RunningService; apiKey: string }> {
  const port = await freePort()
  const sandboxPort = await freePort()
  const env = {
    NODE_ENV: 'production',
    SWITCHYARD_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'sy-prod-')),
    SWITCHYARD_ENCRYPTION_KEY: KEY,
    PORT: String(port),
    SWITCHYARD_SANDBOX_PORT: String(sandboxPort),
    ...extraEnv,
  }
  const previous = { ...process.env }
  Object.assign(process.env, env) // createServices reads the platforms' client variables from the environment
  try {
    const running = await startService(loadConfig(env))
    const user = await running.services.users.create({
      email: `prod-${port}@example.test`,
      plan: 'enterprise',
    })
    const { key } = await running.services.users.createApiKey(user.id)
    return { running, apiKey: key }
  } finally {
    process.env = previous
  }
}

describe('production never runs on a sandbox', () => {
  let prod: { running: RunningService; apiKey: string }
  beforeAll(async () => {
    // Even a sandbox address in the environment is ignored in production.
    prod = await startProduction({
      SWITCHYARD_SANDBOX_URL: 'http://127.0.0.1:9',
      ZENDESK_CLIENT_ID: 'zid',
      ZENDESK_CLIENT_SECRET: 'zsecret',
    })
  })
  afterAll(async () => {
    await prod?.running.close()
  })
  const get = (route: string) =>
    fetch(`${prod.running.url}${route}`, { headers: { authorization: `Bearer ${prod.apiKey}` } })
  const post = (route: string, body: unknown) =>
    fetch(`${prod.running.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${prod.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('starts no sandbox server', () => {
    expect(prod.running.sandboxUrl).toBeUndefined()
  })

  it('reports platforms without a client as not_configured, naming the missing settings', async () => {
    const { platforms } = (await (await get('/v1/platforms')).json()) as {
      platforms: Array<{ id: string; mode: string; missing_settings: string[] }>
    }
    expect(platforms.map((p) => [p.id, p.mode, p.missing_settings])).toEqual([
      ['zendesk', 'live', []],
      ['trello', 'not_configured', ['TRELLO_API_KEY', 'TRELLO_API_SECRET']],
      ['vercel', 'not_configured', ['VERCEL_CLIENT_ID', 'VERCEL_CLIENT_SECRET', 'VERCEL_INTEGRATION_SLUG']],
    ])
    // No sandbox is served in production, so none is linked.
    expect(platforms.map((p) => (p as { sandbox_home?: unknown }).sandbox_home)).toEqual([null, null, null])
  })

  it('answers not_configured when a person tries to connect such a platform', async () => {
    for (const platform of ['trello', 'vercel']) {
      const res = await post('/v1/integrations/connect', { platform })
      expect(res.status).toBe(409)
      const body = (await res.json()) as { code: string; detail: string }
      expect(body.code).toBe('not_configured')
      expect(body.detail).toMatch(/is not configured on this Switchyard: set /)
    }
  })

  it('connects a configured platform against the live service, never the sandbox', async () => {
    const res = await post('/v1/integrations/connect', { platform: 'zendesk', fields: { subdomain: 'acme' } })
    expect(res.status).toBe(201)
    const { connect_url } = (await res.json()) as { connect_url: string }
    // The link first names its owner (docs/security.md); Continue goes on to the platform.
    const browser = new BrowserLike()
    expect((await browser.get(connect_url)).status).toBe(200)
    const start = await browser.post(`${connect_url}/continue`, {})
    const location = start.headers.get('location') ?? ''
    expect(location).toMatch(/^https:\/\/acme\.zendesk\.com\/oauth\/authorizations\/new\?/)
    expect(new URL(location).searchParams.get('client_id')).toBe('zid')
  })
})

function doctor(env: Record<string, string>): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [BIN, 'doctor', '--json'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk)
  })
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout })))
}

describe('switchyard doctor', () => {
  it('in production, lists every missing setting and exits 1', async () => {
    const { code, stdout } = await doctor({ NODE_ENV: 'production', TRELLO_API_KEY: 'k' })
    expect(code).toBe(1)
    const { ok, checks } = JSON.parse(stdout) as {
      ok: boolean
      checks: Array<{ name: string; ok: boolean; detail: string }>
    }
    expect(ok).toBe(false)
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]))
    expect(byName.SWITCHYARD_ENCRYPTION_KEY).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/required in production/),
    })
    expect(byName.Trello).toEqual({
      name: 'Trello',
      ok: false,
      detail: 'not configured: set TRELLO_API_SECRET',
    })
    expect(byName.Zendesk!.detail).toBe('not configured: set ZENDESK_CLIENT_ID, ZENDESK_CLIENT_SECRET')
  })

  it('in production with everything set, passes and prints no secret', async () => {
    const env = {
      NODE_ENV: 'production',
      SWITCHYARD_ENCRYPTION_KEY: KEY,
      SWITCHYARD_PUBLIC_URL: 'https://switchyard.example',
      ZENDESK_CLIENT_ID: 'z',
      ZENDESK_CLIENT_SECRET: 'zendesk-secret-value',
      TRELLO_API_KEY: 't',
      TRELLO_API_SECRET: 'trello-secret-value',
      VERCEL_CLIENT_ID: 'v',
      VERCEL_CLIENT_SECRET: 'vercel-secret-value',
      VERCEL_INTEGRATION_SLUG: 'switchyard',
    }
    const { code, stdout } = await doctor(env)
    expect(code).toBe(0)
    for (const secret of [KEY, 'zendesk-secret-value', 'trello-secret-value', 'vercel-secret-value'])
      expect(stdout).not.toContain(secret)
  })

  it('outside production, a half-configured platform is reported, not quietly run on its sandbox', async () => {
    const { code, stdout } = await doctor({ VERCEL_CLIENT_ID: 'v', VERCEL_CLIENT_SECRET: 's' })
    expect(code).toBe(1)
    const { checks } = JSON.parse(stdout) as { checks: Array<{ name: string; detail: string }> }
    expect(checks.find((c) => c.name === 'Vercel')!.detail).toBe(
      'not configured: set VERCEL_INTEGRATION_SLUG',
    )
  })

  it('on the embedded default, every platform runs on its sandbox', async () => {
    const { code, stdout } = await doctor({})
    expect(code).toBe(0)
    const { checks } = JSON.parse(stdout) as { checks: Array<{ name: string; detail: string }> }
    expect(
      checks.filter((c) => ['Zendesk', 'Trello', 'Vercel'].includes(c.name)).map((c) => c.detail),
    ).toEqual(['sandbox', 'sandbox', 'sandbox'])
  })

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "with DATABASE_URL, says when autovacuum is off for Switchyard's tables, without printing the address",
    async () => {
      const scratch = await scratchDatabase(process.env.TEST_DATABASE_URL!, 'sy_doctor')
      try {
        const store = await openStore({ databaseUrl: scratch.url })
        await store.close()
        const check = async () => {
          const { code, stdout } = await doctor({ DATABASE_URL: scratch.url })
          const { checks } = JSON.parse(stdout) as {
            checks: Array<{ name: string; ok: boolean; detail: string }>
          }
          expect(stdout).not.toContain(scratch.url)
          return { code, autovacuum: checks.find((c) => c.name === 'autovacuum') }
        }
        const admin = new pg.Client({ connectionString: scratch.url })
        await admin.connect()
        const serverOn = (await admin.query('show autovacuum')).rows[0].autovacuum === 'on'
        const before = await check()
        // This machine's server may have it off itself: then that is what the check must say.
        if (serverOn)
          expect(before).toEqual({ code: 0, autovacuum: { name: 'autovacuum', ok: true, detail: 'on' } })
        else
          expect(before.autovacuum).toMatchObject({
            ok: false,
            detail: expect.stringMatching(/^off on the server \(autovacuum\)/),
          })
        await admin.query('alter table runs set (autovacuum_enabled = false)')
        await admin.end()
        const off = await check()
        expect(off.code).toBe(1)
        expect(off.autovacuum).toMatchObject({
          ok: false,
          detail: expect.stringMatching(/off for the tables runs: /),
        })
      } finally {
        await scratch.drop()
      }
    },
    120_000,
  )
})
