import { execFile, spawn } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'

const run = promisify(execFile)
const BIN = path.resolve(import.meta.dirname, '../bin/switchyard.js')
const cli = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, timeout: 60_000 })

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => {
  await stack?.close()
})

describe('switchyard CLI', () => {
  it('tools list --json prints the catalogue', async () => {
    const { stdout } = await cli(['tools', 'list', '--json'])
    const tools = JSON.parse(stdout)
    expect(tools.length).toBeGreaterThanOrEqual(7)
    for (const tool of tools) {
      expect(Object.keys(tool)).toEqual(
        expect.arrayContaining(['id', 'title', 'platform', 'kind', 'effect', 'inputSchema', 'outputSchema']),
      )
    }
  })

  it('tools search <words> --json searches like the search bar', async () => {
    const { stdout } = await cli(['tools', 'search', 'ticketing', '--json'])
    expect(JSON.parse(stdout).every((t: any) => t.platform === 'zendesk')).toBe(true)
  })

  it("tools list and search --json carry each step's description", async () => {
    for (const args of [
      ['tools', 'list', '--json'],
      ['tools', 'search', 'ticket', '--json'],
    ]) {
      const tools = JSON.parse((await cli(args)).stdout)
      expect(tools.length, args.join(' ')).toBeGreaterThan(0)
      for (const tool of tools)
        expect(typeof tool.description === 'string' && tool.description.length > 0, tool.id).toBe(true)
    }
  })

  it('tools search with no match says so on stderr and exits 0; --json prints an empty array', async () => {
    const plain = await cli(['tools', 'search', 'zzqx', 'nothing-like-this'])
    expect(plain.stdout).toBe('')
    expect(plain.stderr).toContain('No tool step matches "zzqx nothing-like-this"')
    const json = await cli(['tools', 'search', 'zzqx', '--json'])
    expect(JSON.parse(json.stdout)).toEqual([])
    expect(json.stderr).toContain('No tool step matches "zzqx"')
  })

  it('tools run calls the running service by account name and prints no secret', async () => {
    await connectZendesk(stack)
    const { stdout } = await cli(
      [
        'tools',
        'run',
        'zendesk.create_ticket',
        '--integration',
        'Ada Admin (acme)',
        '--input',
        '{"subject":"from the CLI","description":"d"}',
      ],
      { SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: stack.apiKey },
    )
    // A person reads the summary line first, then the JSON.
    const [line, ...json] = stdout.split('\n')
    const body = JSON.parse(json.join('\n'))
    expect(line).toBe(`Ticket #${body.output.id}: from the CLI created <${body.summary.url}>`)
    expect(body.output.subject).toBe('from the CLI')
    expect(stdout).not.toContain(stack.apiKey)
  })

  it('tools run --json prints the answer alone, for scripts', async () => {
    const { stdout } = await cli(
      [
        'tools',
        'run',
        'zendesk.create_ticket',
        '--json',
        '--integration',
        'Ada Admin (acme)',
        '--input',
        '{"subject":"for a script","description":"d"}',
      ],
      { SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: stack.apiKey },
    )
    expect(JSON.parse(stdout)).toMatchObject({
      output: { subject: 'for a script' },
      summary: { text: expect.stringMatching(/for a script created$/) },
    })
  })

  it('tools run with bad input exits non-zero with the problem naming the field', async () => {
    const failed = await cli(
      [
        'tools',
        'run',
        'zendesk.get_ticket',
        '--integration',
        'Ada Admin (acme)',
        '--input',
        '{"ticket_id":"x"}',
      ],
      { SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: stack.apiKey },
    ).catch((err) => err)
    expect(failed.code).toBe(1)
    expect(JSON.parse(failed.stdout).errors[0].field).toBe('input.ticket_id')
  })

  it('an account name two integrations share is refused, listing both ids; an unknown one lists what there is', async () => {
    const other = await stack.createUser()
    const env = { SWITCHYARD_URL: stack.url, SWITCHYARD_API_KEY: other.apiKey }
    const none = await cli(
      ['tools', 'run', 'zendesk.get_ticket', '--integration', 'acme', '--input', '{"ticket_id":1}'],
      env,
    ).catch((err) => err)
    expect(none.code).toBe(1)
    expect(none.stderr).toContain(
      'no zendesk integration has the id or account name "acme"; you have none yet',
    )
    const first = (await connectZendesk({ url: stack.url, apiKey: other.apiKey })).integrationId!
    // A second account of the same name (two look-alike accounts): a copy of the first row under another id.
    const db = stack.services.store.db
    const row = await db
      .selectFrom('integrations')
      .selectAll()
      .where('id', '=', first)
      .executeTakeFirstOrThrow()
    const second = `${first}x`
    await db
      .insertInto('integrations')
      .values({
        ...row,
        id: second,
        external_id: `${row.external_id}:copy`,
        fields: JSON.stringify(row.fields),
      } as any)
      .execute()
    const near = await cli(
      ['tools', 'run', 'zendesk.get_ticket', '--integration', 'acme', '--input', '{"ticket_id":1}'],
      env,
    ).catch((err) => err)
    expect(near.code).toBe(1)
    expect(near.stderr).toContain(`yours are ${first} ("Ada Admin (acme)"), ${second} ("Ada Admin (acme)")`)
    const both = await cli(
      [
        'tools',
        'run',
        'zendesk.get_ticket',
        '--integration',
        'Ada Admin (acme)',
        '--input',
        '{"ticket_id":1}',
      ],
      env,
    ).catch((err) => err)
    expect(both.code).toBe(1)
    expect(JSON.parse(both.stdout).errors[0].field).toBe('integration')
    expect(both.stderr).toContain(
      `integration: several zendesk integrations are named "Ada Admin (acme)"; give one of their ids: ${first} ("Ada Admin (acme)"), ${second} ("Ada Admin (acme)")`,
    )
    // Said once: the detail of an invalid_input is its field errors joined.
    expect(both.stderr.split('several zendesk integrations').length - 1).toBe(1)
    expect(both.stderr).not.toContain(other.apiKey)
  }, 90_000) // three CLI processes, each a fresh Node start: 7–20 s apiece on a loaded machine

  it('gives up on a service that never answers, with a clear message', async () => {
    const silent = http.createServer(() => {
      /* never answers */
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
      const failed = await cli(
        ['tools', 'run', 'zendesk.get_ticket', '--integration', 'acme', '--input', '{"ticket_id":1}'],
        { SWITCHYARD_URL: url, SWITCHYARD_API_KEY: stack.apiKey, SWITCHYARD_CLI_TIMEOUT_MS: '500' },
      ).catch((err) => err)
      expect(failed.code).toBe(1)
      expect(failed.stderr).toContain(
        `Switchyard at ${url} did not answer within 0.5 s; set SWITCHYARD_CLI_TIMEOUT_MS to wait longer`,
      )
    } finally {
      silent.closeAllConnections()
      silent.close()
    }
  })

  it('sandbox --port N serves the sandboxes', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk) => {
          const match = /listening on (\S+)/.exec(String(chunk))
          if (match) resolve(match[1])
        })
        child.once('exit', () => reject(new Error('sandbox exited')))
      })
      const res = await fetch(`${url}/zendesk/acme/api/v2/tickets.json`)
      expect(res.status).toBe(401)
    } finally {
      child.kill()
    }
  })
})
