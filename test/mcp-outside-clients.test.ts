import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'

// Switchyard's /mcp driven by MCP clients nobody here wrote, as released on npm (issue 12 §4): the
// protocol's conformance suite, and the MCP Inspector's CLI as a person debugging would run it. Both
// run as child processes against the service over real HTTP, the tool steps against the sandboxes.
const execFileAsync = promisify(execFile)
/** Runs a Node script to its end: its exit code (0 when it succeeded) and what it printed. */
const runNode = (args: string[]) =>
  execFileAsync(process.execPath, args, { timeout: 60_000 }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code?: number; stdout?: string }) => ({ code: err.code ?? -1, stdout: err.stdout ?? '' }),
  )
const modulePath = (path: string) => fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url))
const CONFORMANCE = modulePath('@modelcontextprotocol/conformance/dist/index.js')
const INSPECTOR = modulePath('@modelcontextprotocol/inspector/clients/launcher/build/index.js')
const SWITCHYARD_CLI = fileURLToPath(new URL('../bin/switchyard.js', import.meta.url))
const NODE20_FS_GLOB = fileURLToPath(new URL('./helpers/node20-fs-glob/register.mjs', import.meta.url))

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  await connectZendesk(stack)
})
afterAll(async () => {
  await stack?.close()
})

/**
 * The conformance suite's server scenarios that apply to Switchyard. The rest test the reference
 * server's own fixtures (tools named `test_simple_text`, `json_schema_2020_12_tool` and the like,
 * resources, prompts, completions, elicitation, sampling), features Switchyard does not offer
 * (`logging/setLevel`: it sends no log notifications), sessions (the SSE polling and multiple-stream
 * scenarios: /mcp is stateless, and they only warn), or servers without authentication (DNS
 * rebinding: every /mcp request needs an API key or a run's token).
 */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list']

/**
 * The suite's client sends no credentials, so it reaches /mcp through this forwarder, which adds the
 * API key as an MCP client's configuration would and passes everything else through unchanged.
 */
async function withApiKey(target: string, apiKey: string): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target)
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      {
        host: to.hostname,
        port: to.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${apiKey}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://localhost:${port}/mcp`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED'
  errorMessage?: string
}

describe('the MCP conformance suite (@modelcontextprotocol/conformance)', () => {
  it.each(SCENARIOS)('passes its server scenario %s against /mcp', async (scenario) => {
    const proxy = await withApiKey(stack.url, stack.apiKey)
    const out = mkdtempSync(join(tmpdir(), 'switchyard-conformance-'))
    try {
      const result = await runNode([
        '--import',
        NODE20_FS_GLOB,
        CONFORMANCE,
        'server',
        '--url',
        proxy.url,
        '--scenario',
        scenario,
        '--output-dir',
        out,
      ])
      const files = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) =>
        f.endsWith('checks.json'),
      )
      expect(files, 'the suite wrote its checks').toHaveLength(1)
      const checks = JSON.parse(readFileSync(join(out, files[0]), 'utf8')) as Check[]
      const verdicts = checks.filter((c) => c.status !== 'INFO')
      expect(verdicts.length).toBeGreaterThan(0)
      expect(
        verdicts.filter((c) => c.status !== 'SUCCESS'),
        JSON.stringify(result),
      ).toEqual([])
      expect(result.code).toBe(0)
    } finally {
      rmSync(out, { recursive: true, force: true })
      await proxy.close()
    }
  })
})

describe("the MCP Inspector's CLI (@modelcontextprotocol/inspector --cli)", () => {
  const inspect = (...args: string[]) =>
    runNode([
      INSPECTOR,
      '--cli',
      `${stack.url}/mcp`,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${stack.apiKey}`,
      ...args,
    ])

  it('lists every tool step, with schemas it finds portable', async () => {
    const listed = await inspect('--method', 'tools/list', '--strict')
    expect(listed.code, listed.stdout).toBe(0)
    const names = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)
    expect(names).toEqual(
      expect.arrayContaining([
        'search_tools',
        'zendesk_create_ticket',
        'trello_archive_card',
        'vercel_cancel_deployment',
      ]),
    )
    // Beside the steps: search_tools, list_agents, start_agent_run, get_run, list_approvals, decide_approval.
    expect(names).toHaveLength(stack.services.registry.list().length + 6)
  })

  it("calls a tool step on the connected Zendesk account and prints the sandbox's tickets", async () => {
    const called = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'zendesk_list_tickets',
      '--tool-arg',
      'limit=2',
    )
    expect(called.code, called.stdout).toBe(0)
    const result = JSON.parse(called.stdout) as {
      isError?: boolean
      structuredContent: { tickets: Array<{ id: number; subject: string }> }
    }
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent.tickets).toHaveLength(2)
    expect(result.structuredContent.tickets[0].subject).toEqual(expect.any(String))
  })

  it('calls the same step over stdio, starting `switchyard mcp` as a desktop client would', async () => {
    const called = await runNode([
      INSPECTOR,
      '--cli',
      '--method',
      'tools/call',
      '--tool-name',
      'zendesk_list_tickets',
      '--tool-arg',
      'limit=1',
      '-e',
      `SWITCHYARD_URL=${stack.url}`,
      '-e',
      `SWITCHYARD_API_KEY=${stack.apiKey}`,
      '--',
      process.execPath,
      SWITCHYARD_CLI,
      'mcp',
    ])
    const result = JSON.parse(called.stdout) as { structuredContent: { tickets: unknown[] } }
    expect(result.structuredContent.tickets).toHaveLength(1)
  })

  it("shows a platform's refusal as the tool's error, with the problem detail, and exits non-zero", async () => {
    const called = await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'zendesk_get_ticket',
      '--tool-arg',
      'ticket_id=999999',
    )
    expect(called.code).not.toBe(0)
    const result = JSON.parse(called.stdout.slice(0, called.stdout.lastIndexOf('\n{"error"'))) as {
      isError: boolean
      content: Array<{ text: string }>
    }
    expect(result.isError).toBe(true)
    expect(JSON.parse(result.content[0].text)).toMatchObject({
      code: 'not_found',
      status: 404,
      upstream_status: 404,
    })
  })
})
