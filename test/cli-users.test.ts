import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'

const run = promisify(execFile)
const BIN = path.resolve(import.meta.dirname, '../bin/switchyard.js')

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => {
  await stack?.close()
})

const cli = (args: string[], apiKey = stack.apiKey) =>
  run(process.execPath, [BIN, 'users', ...args], {
    env: { ...process.env, SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: apiKey },
    timeout: 60_000,
  })

describe('switchyard users, through the running service', () => {
  it('create, list, set-plan and remove, by email, with --json', async () => {
    const created = JSON.parse(
      (await cli(['create', 'Cli.User@example.test', '--plan', 'pro', '--json'])).stdout,
    )
    expect(created.user).toMatchObject({ email: 'cli.user@example.test', plan: 'pro', role: 'member' })
    expect((await client(stack, created.api_key.key).get('/v1/me')).status).toBe(200)

    const listed = JSON.parse((await cli(['list', '--json'])).stdout)
    expect(listed.map((u: any) => u.email)).toContain('cli.user@example.test')
    expect((await cli(['list'])).stdout).toMatch(/cli\.user@example\.test\s+pro\s+member/)

    const changed = JSON.parse(
      (await cli(['set-plan', 'cli.user@example.test', 'enterprise', '--json'])).stdout,
    )
    expect(changed.plan).toBe('enterprise')

    const refused = await cli(['remove', 'cli.user@example.test']).catch((err) => err)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/--yes/)
    const removed = JSON.parse((await cli(['remove', 'cli.user@example.test', '--yes', '--json'])).stdout)
    expect(removed).toMatchObject({ id: created.user.id, integrations_disconnected: 0 })
    expect((await client(stack, created.api_key.key).get('/v1/me')).status).toBe(401)
  }, 120_000) // six CLI processes, each starting Node and tsx (about 5 s each on a loaded machine)

  it('bad input exits 1 with the problem naming the field', async () => {
    const failed = await cli(['create', 'x@example.test', '--plan', 'gold', '--json']).catch((err) => err)
    expect(failed.code).toBe(1)
    expect(JSON.parse(failed.stdout).errors[0].field).toBe('plan')
    const words = await cli(['create', 'not-an-email']).catch((err) => err)
    expect(words.code).toBe(1)
    expect(words.stderr).toMatch(/email: must be an email address/)
  })

  it('a member is told only an admin can manage users', async () => {
    const member = await stack.createUser()
    const failed = await cli(['list'], member.apiKey).catch((err) => err)
    expect(failed.code).toBe(1)
    expect(failed.stderr).toMatch(/only an admin can manage users/)
  })
})

describe('switchyard users password-link and sessions, through the running service', () => {
  const sessionsCli = (args: string[], apiKey: string) =>
    run(process.execPath, [BIN, 'sessions', ...args], {
      env: { ...process.env, SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: apiKey },
      timeout: 60_000,
    })

  it('create prints an invitation link; password-link issues a new one; a person ends their sessions', async () => {
    const words = (await cli(['create', 'linked@example.test'])).stdout
    expect(words).toMatch(/invitation link, one use, until .*hand it over privately:\n.*\/welcome#token=/)
    const first = new URL(/(http\S+#token=\S+)/.exec(words)![1]).hash.slice('#token='.length)
    const link = JSON.parse((await cli(['password-link', 'linked@example.test', '--json'])).stdout)
    expect(link).toMatchObject({ purpose: 'invitation', emailed: false })
    const token = new URL(link.url).hash.slice('#token='.length)
    expect(token).not.toBe(first)
    const origin = new URL(stack.url).origin
    const accept = (t: string) =>
      fetch(`${stack.url}/v1/password-links/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ token: t, password: 'quartz meadow fiddle orbit' }),
      })
    expect((await accept(first)).status).toBe(410)
    const accepted = await accept(token)
    expect(accepted.status).toBe(204)
    // The person's key, to drive `sessions` as them.
    const user = JSON.parse((await cli(['list', '--json'])).stdout).find(
      (u: any) => u.email === 'linked@example.test',
    )
    const key = (await stack.services.users.createApiKey(user.id)).key
    const listed = JSON.parse((await sessionsCli(['list', '--json'], key)).stdout)
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ method: 'link', current: false })
    expect((await sessionsCli(['list'], key)).stdout).toContain(listed[0].id)
    const missing = await sessionsCli(['end', 'ses_nope', '--json'], key).catch((err) => err)
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout).code).toBe('not_found')
    expect(JSON.parse((await sessionsCli(['end', '--all', '--json'], key)).stdout)).toEqual({ ended: 1 })
    expect(JSON.parse((await sessionsCli(['list', '--json'], key)).stdout)).toEqual([])
    expect((await cli(['password-link', 'linked@example.test'])).stdout).toMatch(/password reset link/)
  }, 180_000) // nine CLI processes, each starting Node and tsx
})
