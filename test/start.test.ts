import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../bench/processes.ts'

// `switchyard start` on the embedded default, as a newcomer's `npm start` runs it.
const BIN = path.resolve(import.meta.dirname, '../bin/switchyard.js')
const children: Array<ReturnType<typeof spawn>> = []
afterAll(() => {
  for (const child of children) child.kill()
})

function start(
  env: Record<string, string>,
): Promise<{ output: string; code: number | null; ready: boolean }> {
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let output = ''
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      output += String(chunk)
      if (/Switchyard is running at/.test(output)) resolve({ output, code: null, ready: true })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => resolve({ output, code, ready: false }))
  })
}

describe('switchyard start (embedded default)', () => {
  it('creates a first user on first start, keeps its key out of the console, and reuses everything on restart', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-start-'))
    const [port, sandboxPort] = [await freePort(), await freePort()]
    const env = {
      SWITCHYARD_DATA_DIR: dataDir,
      PORT: String(port),
      SWITCHYARD_SANDBOX_PORT: String(sandboxPort),
    }
    const first = await start(env)
    expect(first.ready, first.output).toBe(true)

    const keyFile = path.join(dataDir, 'admin-api-key')
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.join(dataDir, 'encryption.key')).mode & 0o777).toBe(0o600)
    const key = fs.readFileSync(keyFile, 'utf8').trim()
    expect(first.output).not.toContain(key)
    expect(first.output).toContain(keyFile)

    const me = await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { authorization: `Bearer ${key}` } })
    expect(await me.json()).toMatchObject({
      email: 'admin@switchyard.local',
      plan: 'enterprise',
      role: 'admin',
    }) // the first user manages the others

    // The CLI finds this instance on its own port through the URL start wrote, as the banner says.
    const urlFile = path.join(dataDir, 'service-url')
    expect(fs.readFileSync(urlFile, 'utf8').trim()).toBe(`http://127.0.0.1:${port}`)
    expect(fs.statSync(urlFile).mode & 0o777).toBe(0o644)
    const cliLine = `SWITCHYARD_DATA_DIR=${dataDir} npx switchyard tools list`
    expect(first.output).toContain(`CLI:      ${cliLine}`)
    const {
      PORT: _port,
      SWITCHYARD_URL: _url,
      SWITCHYARD_API_KEY: _key,
      SWITCHYARD_PUBLIC_URL: _public,
      ...bare
    } = process.env
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'users', 'list', '--json'], {
      env: { ...bare, SWITCHYARD_DATA_DIR: dataDir },
      timeout: 60_000,
    })
    expect(JSON.parse(stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ email: 'admin@switchyard.local' })]),
    )
    const sandbox = await fetch(`http://127.0.0.1:${sandboxPort}/zendesk/acme/api/v2/users/me.json`)
    expect(sandbox.status).toBe(200)

    // Restart only once the first process has exited and let go of its data directory and ports.
    const firstChild = children.pop()!
    const exited = new Promise((r) => firstChild.once('exit', r))
    firstChild.kill('SIGTERM')
    await exited
    expect(fs.existsSync(urlFile)).toBe(false) // a clean stop takes its address back
    const second = await start(env)
    expect(second.ready, second.output).toBe(true)
    expect(fs.readFileSync(keyFile, 'utf8').trim()).toBe(key)
    const again = await fetch(`http://127.0.0.1:${port}/v1/me`, {
      headers: { authorization: `Bearer ${key}` },
    })
    expect(again.status).toBe(200)
  }, 120_000) // two starts, each with a fresh database: slow on a loaded 2-core machine

  it('PORT=0 serves on a port the system chose, and the banner and service-url name that port, not 0', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-start-'))
    const started = await start({ SWITCHYARD_DATA_DIR: dataDir, PORT: '0', SWITCHYARD_SANDBOX_PORT: '0' })
    expect(started.ready, started.output).toBe(true)
    const url = /Switchyard is running at (\S+)/.exec(started.output)![1]!
    expect(new URL(url).port).toMatch(/^[1-9]\d*$/)
    expect(fs.readFileSync(path.join(dataDir, 'service-url'), 'utf8').trim()).toBe(url)
    expect((await fetch(`${url}/health`)).status).toBe(200)
    // The addresses the service makes from its public URL name the same port.
    expect(
      ((await (await fetch(`${url}/openapi.json`)).json()) as { servers: Array<{ url: string }> }).servers[0]!
        .url,
    ).toBe(url)
  }, 60_000)

  it('production creates the first admin only from SWITCHYARD_ADMIN_EMAIL, with its key in a 0600 file', async () => {
    const base = { NODE_ENV: 'production', SWITCHYARD_ENCRYPTION_KEY: '33'.repeat(32) }
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-prod-'))
    const without = await start({ ...base, SWITCHYARD_DATA_DIR: bare, PORT: String(await freePort()) })
    expect(without.ready, without.output).toBe(true)
    expect(without.output).toContain('No user exists yet: set SWITCHYARD_ADMIN_EMAIL')
    expect(fs.existsSync(path.join(bare, 'admin-api-key'))).toBe(false)
    children.pop()!.kill('SIGTERM')

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-prod-'))
    const port = await freePort()
    const withEmail = await start({
      ...base,
      SWITCHYARD_DATA_DIR: dataDir,
      PORT: String(port),
      SWITCHYARD_ADMIN_EMAIL: 'ops@example.test',
    })
    expect(withEmail.ready, withEmail.output).toBe(true)
    const keyFile = path.join(dataDir, 'admin-api-key')
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600)
    const key = fs.readFileSync(keyFile, 'utf8').trim()
    expect(withEmail.output).not.toContain(key)
    const me = await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { authorization: `Bearer ${key}` } })
    expect(await me.json()).toMatchObject({ email: 'ops@example.test', role: 'admin' })
  }, 120_000)

  it('production refuses to start without an encryption key', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-prod-'))
    const result = await start({
      NODE_ENV: 'production',
      SWITCHYARD_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      SWITCHYARD_SANDBOX_PORT: String(await freePort()),
      SWITCHYARD_ENCRYPTION_KEY: '',
    })
    expect(result.ready).toBe(false)
    expect(result.code).not.toBe(0)
    expect(result.output).toMatch(/SWITCHYARD_ENCRYPTION_KEY is required/)
    expect(fs.existsSync(path.join(dataDir, 'encryption.key'))).toBe(false)
  })

  it('a setting written wrong stops the start and is named, rather than replaced by a default', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sy-typo-'))
    const result = await start({
      SWITCHYARD_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      SWITCHYARD_SANDBOX_PORT: String(await freePort()),
      SWITCHYARD_AGENT_NETWORKS: 'publc',
      SWITCHYARD_RUN_LEASE_MS: '30s',
    })
    expect(result.ready).toBe(false)
    expect(result.code).toBe(1)
    expect(result.output).toContain('SWITCHYARD_AGENT_NETWORKS must be public or any, not "publc"')
    expect(result.output).toContain('SWITCHYARD_RUN_LEASE_MS must be a whole number of at least 1, not "30s"')
  })
})
