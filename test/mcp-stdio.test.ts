import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ErrorCode, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/server/app.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { callFails, callOk, httpClient, listAll } from './helpers/mcp.ts'
import { callEveryStep } from './helpers/mcp-steps.ts'
import { client as rest } from './helpers/stack.ts'
import { connectTrelloWithToken } from './helpers/trello.ts'
import { connectVercel } from './helpers/vercel.ts'
import { toolNameOf } from '../src/server/mcp/catalog.ts'

// `switchyard mcp` as a desktop client runs it: a child process spoken to over stdin/stdout by the
// SDK's own stdio client, pointed at a running service by SWITCHYARD_URL and SWITCHYARD_API_KEY.
const CLI = path.resolve(import.meta.dirname, '../bin/switchyard.js')
const STARTUP_MS = 60_000

let stack: TestStack
const open: Client[] = []
const stderr: string[] = []

async function stdioClient(url: string, apiKey: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    env: { ...process.env, SWITCHYARD_URL: url, SWITCHYARD_API_KEY: apiKey } as Record<string, string>,
    stderr: 'pipe',
  })
  transport.stderr?.on('data', (chunk) => stderr.push(String(chunk)))
  const client = new Client({ name: 'switchyard-stdio-tests', version: '0.0.0' })
  // Anything on stdout that is not a protocol message surfaces here as a parse error.
  const errors: unknown[] = []
  client.onerror = (err) => errors.push(err)
  await client.connect(transport)
  open.push(client)
  Object.assign(client, { protocolErrors: errors })
  return client
}

const protocolErrors = (client: Client) => (client as unknown as { protocolErrors: unknown[] }).protocolErrors

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  await connectZendesk(stack)
  await connectVercel(stack)
}, STARTUP_MS)
afterAll(async () => {
  for (const client of open) await client.close().catch(() => {})
  await stack?.close()
})

describe('switchyard mcp over stdio', () => {
  let client: Client
  let tools: Tool[]

  beforeAll(async () => {
    client = await stdioClient(stack.url, stack.apiKey)
    tools = (await listAll(client)).tools
  }, STARTUP_MS)

  it("lists exactly what the service's /mcp lists for the same key", async () => {
    const http = await httpClient(stack.url, stack.apiKey)
    try {
      expect(tools).toEqual((await listAll(http)).tools)
    } finally {
      await http.close()
    }
    expect(client.getServerVersion()?.name).toBe('switchyard')
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true)
  })

  it('runs a step through the service, with the one account as the default', async () => {
    const ticket = await callOk(client, 'zendesk_create_ticket', {
      subject: 'From a desktop client',
      description: 'over stdio',
    })
    expect(await callOk(client, 'zendesk_get_ticket', { ticket_id: ticket.id })).toMatchObject({
      id: ticket.id,
      subject: 'From a desktop client',
    })
  })

  it(
    'runs every tool step through the service once Trello is connected too',
    async () => {
      await connectTrelloWithToken(stack)
      const called = await callEveryStep(client, stack)
      expect([...called].sort()).toEqual(
        stack.services.registry
          .list()
          .map((s) => toolNameOf(s.id))
          .sort(),
      )
    },
    STARTUP_MS,
  )

  it('passes on tool errors with their problem detail, and protocol errors with their code', async () => {
    expect(await callFails(client, 'zendesk_create_ticket', { subject: 'no description' })).toMatchObject({
      code: 'invalid_input',
      errors: [{ field: 'description' }],
    })
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    })
  })

  it("announces list changes when the key's user disconnects an account", async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    )
    const trello = (await rest(stack, stack.apiKey).get('/v1/integrations')).body.integrations.find(
      (i: any) => i.platform === 'trello',
    )
    expect((await rest(stack, stack.apiKey).post(`/v1/integrations/${trello.id}/disconnect`)).status).toBe(
      200,
    )
    await changed
    const boards = (await listAll(client)).tools.find((t) => t.name === 'trello_get_boards')!
    expect(boards.inputSchema.properties!.integration).not.toHaveProperty('enum')
    expect(await callFails(client, 'trello_get_boards', {})).toMatchObject({
      code: 'not_found',
      connect: { page: `${stack.url}/integrations` },
    })
  })

  it('writes nothing to stdout but protocol messages', () => {
    expect(protocolErrors(client)).toEqual([])
  })
})

describe('switchyard mcp against a service that pages its list', () => {
  it(
    'passes cursors through, so a client sees every page',
    async () => {
      const small: FastifyInstance = await buildApp(stack.services, { mcp: { pageSize: 4 } })
      await small.listen({ port: 0, host: '127.0.0.1' })
      try {
        const url = `http://127.0.0.1:${(small.server.address() as { port: number }).port}`
        const client = await stdioClient(url, stack.apiKey)
        const { tools, pages } = await listAll(client)
        expect(pages).toBe(Math.ceil((stack.services.registry.list().length + 6) / 4))
        expect(tools.map((t) => t.name)).toEqual([
          'search_tools',
          'list_agents',
          'start_agent_run',
          'get_run',
          'list_approvals',
          'decide_approval',
          ...stack.services.registry.list().map((s) => s.id.replace('.', '_')),
        ])
        await client.close()
      } finally {
        await small.close()
      }
    },
    STARTUP_MS,
  )
})

describe('switchyard mcp when the service cannot be used', () => {
  it(
    'a refused key is reported as such, and stdout stays clean',
    async () => {
      const client = await stdioClient(stack.url, 'sy_not_a_key')
      await expect(client.listTools()).rejects.toThrow(/refused the API key/)
      expect(protocolErrors(client)).toEqual([])
    },
    STARTUP_MS,
  )

  it(
    'an unreachable service is reported with its address',
    async () => {
      const client = await stdioClient('http://127.0.0.1:9', stack.apiKey)
      await expect(client.listTools()).rejects.toThrow(
        /could not reach Switchyard at http:\/\/127\.0\.0\.1:9/,
      )
    },
    STARTUP_MS,
  )
})
