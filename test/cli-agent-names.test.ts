import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { runCli, type CliResult } from './helpers/cli.ts'
import { client } from './helpers/stack.ts'

// Each CLI start is a fresh Node process, a few seconds each on a busy machine (as cli-agents gives).
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 })

// Issue 22, §7: the CLI resolved an agent's name by reading every page of the caller's agents. It
// now asks for the id, then for the name (GET /v1/agents?name=, an index), as these requests show.

let stack: TestStack
let proxy: http.Server
let proxyUrl: string
/** The method and path (with its query) of each request the CLI sent, through the recording proxy. */
const sent: string[] = []

async function cli(...args: string[]): Promise<CliResult> {
  sent.length = 0
  return runCli({ url: proxyUrl, apiKey: stack.apiKey }, args)
}

const external = (name: string) => ({
  name,
  kind: 'external',
  external: { url: 'https://agent.example.test/runs' },
})

const ids: Record<string, string> = {}

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  const api = client(stack, stack.apiKey)
  for (const name of ['Filer', 'Twin', 'twin', 'Other']) {
    const made = await api.post('/v1/agents', external(name))
    expect(made.status).toBe(201)
    ids[name] = made.body.id
  }
  // Forwards each request to the stack as it came, noting what was asked.
  const target = new URL(stack.url)
  proxy = http.createServer((req, res) => {
    sent.push(`${req.method} ${req.url}`)
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve))
  await stack?.close()
})

/** Requests for a list of agents that name no agent: a read of the caller's agents, page by page. */
const wholeListReads = () => sent.filter((r) => /^GET \/v1\/agents(\?|$)/.test(r) && !/[?&]name=/.test(r))

describe('switchyard resolves an agent by id or name without reading every agent', () => {
  it('by id: one request for that agent', async () => {
    const got = await cli('agents', 'get', ids.Filer!, '--json')
    expect(got.code).toBe(0)
    expect(JSON.parse(got.stdout).name).toBe('Filer')
    expect(sent.filter((r) => r.startsWith('GET /v1/agents'))).toEqual([
      `GET /v1/agents/${ids.Filer}`,
      `GET /v1/agents/${ids.Filer}`,
    ])
  })

  it('by name, exactly or ignoring case, through GET /v1/agents?name=', async () => {
    const exact = await cli('agents', 'get', 'twin', '--json')
    expect(exact.code).toBe(0)
    expect(JSON.parse(exact.stdout).id).toBe(ids.twin)
    expect(sent).toContain('GET /v1/agents?name=twin&limit=200')
    expect(wholeListReads()).toEqual([])

    const loose = await cli('agents', 'get', 'FILER', '--json')
    expect(loose.code).toBe(0)
    expect(JSON.parse(loose.stdout).id).toBe(ids.Filer)
    expect(wholeListReads()).toEqual([])
  })

  it('names the agents a name could mean apart from case, and asks for an id', async () => {
    const twins = await cli('agents', 'get', 'TWIN')
    expect(twins.code).toBe(1)
    expect(twins.stderr).toContain('several agents are named "TWIN" apart from case: ')
    expect(twins.stderr).toContain(`${ids.Twin} ("Twin")`)
    expect(twins.stderr).toContain(`${ids.twin} ("twin")`)
    expect(twins.stderr).toContain('; give an id')
    expect(wholeListReads()).toEqual([])
  })

  it('says what there is when nothing has the id or name, from one short page', async () => {
    const unknown = await cli('agents', 'get', 'Nobody')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('no agent has the id or name "Nobody"; yours are ')
    expect(unknown.stderr).toContain('"Filer"')
    expect(wholeListReads()).toEqual(['GET /v1/agents?limit=10'])
  })
})
