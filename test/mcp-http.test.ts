import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ErrorCode, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/server/app.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { toolNameOf } from '../src/server/mcp/catalog.ts'
import { connectZendesk } from './helpers/connect.ts'
import { callFails, callOk, httpClient, listAll, streamOpen } from './helpers/mcp.ts'
import { callEveryStep } from './helpers/mcp-steps.ts'
import { client as rest, zendeskControl } from './helpers/stack.ts'
import { connectTrelloWithToken, TRELLO, trelloControl } from './helpers/trello.ts'
import { connectVercel, VERCEL } from './helpers/vercel.ts'

// MCP over Streamable HTTP, driven by the SDK's own Client (which also checks every structured
// result against the tool's output schema), against the sandboxes over real HTTP.
let stack: TestStack
let mcp: Client
let tools: Tool[]
const ZENDESK_ACCOUNT = 'Ada Admin (acme)'
const VERCEL_PERSONAL = `${VERCEL.user.name} (${VERCEL.user.username})`
const VERCEL_TEAM = `${VERCEL.team.name} (${VERCEL.team.slug})`

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  await connectZendesk(stack)
  await connectTrelloWithToken(stack)
  await connectVercel(stack)
  mcp = await httpClient(stack.url, stack.apiKey)
  tools = (await listAll(mcp)).tools
})
afterAll(async () => {
  await mcp?.close()
  await stack?.close()
})

const tool = (name: string) => tools.find((t) => t.name === name)!

describe('the tool list', () => {
  it("has every tool step once, in the catalogue's fixed order, after the search tool and the agent tools", async () => {
    const steps = stack.services.registry.list()
    expect(tools.map((t) => t.name)).toEqual([
      'search_tools',
      'list_agents',
      'start_agent_run',
      'get_run',
      'list_approvals',
      'decide_approval',
      ...steps.map((s) => toolNameOf(s.id)),
    ])
    for (const step of steps) {
      const listed = tool(toolNameOf(step.id))
      expect(listed.name).toMatch(/^[a-z0-9_]{1,64}$/)
      expect(listed.description).toBe(step.description)
      expect(listed.title).toContain(step.title)
      expect(listed.inputSchema.type).toBe('object')
      expect(listed.outputSchema?.type).toBe('object')
      expect(Object.keys(listed.inputSchema.properties!)).toEqual([
        'integration',
        ...Object.keys(step.inputSchema.properties as object),
      ])
    }
    expect((await listAll(mcp)).tools).toEqual(tools)
  })

  it('pages with an opaque cursor when a page holds fewer tools than the catalogue', async () => {
    const small: FastifyInstance = await buildApp(stack.services, { mcp: { pageSize: 5 } })
    await small.listen({ port: 0, host: '127.0.0.1' })
    const url = `http://127.0.0.1:${(small.server.address() as { port: number }).port}`
    const paged = await httpClient(url, stack.apiKey)
    try {
      const { tools: all, pages } = await listAll(paged)
      expect(pages).toBe(Math.ceil(tools.length / 5))
      expect(all).toEqual(tools)
      for (const cursor of [
        'nonsense',
        Buffer.from('{"offset":-5}').toString('base64url'),
        Buffer.from('{"offset":999}').toString('base64url'),
      ]) {
        await expect(paged.listTools({ cursor })).rejects.toMatchObject({
          code: ErrorCode.InvalidParams,
          message: expect.stringContaining('cursor'),
        })
      }
    } finally {
      await paged.close()
      await small.close()
    }
  })

  it.each([
    ['zendesk_get_ticket', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
    ['trello_get_boards', { readOnlyHint: true, destructiveHint: false, idempotentHint: true }],
    ['zendesk_create_ticket', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
    ['trello_add_comment_to_card', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
    ['trello_update_card', { readOnlyHint: false, destructiveHint: false, idempotentHint: true }],
    ['zendesk_update_ticket', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
    ['zendesk_delete_ticket', { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
    ['trello_archive_card', { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
    ['vercel_cancel_deployment', { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
    ['zendesk_api_call', { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
    ['trello_api_call', { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
    ['vercel_api_call', { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
    [
      'search_tools',
      { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    ],
    [
      'list_agents',
      { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    ],
    ['get_run', { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
    ['start_agent_run', { readOnlyHint: false, destructiveHint: false, idempotentHint: false }],
    [
      'list_approvals',
      { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    ],
    ['decide_approval', { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
  ])('%s is annotated %o', (name, hints) => {
    expect(tool(name).annotations).toMatchObject({ openWorldHint: true, ...hints })
  })

  it('sets every hint explicitly on every tool, and marks each delete step destructive', () => {
    for (const listed of tools) {
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        expect(typeof (listed.annotations as Record<string, unknown>)[hint], `${listed.name} ${hint}`).toBe(
          'boolean',
        )
      }
    }
    for (const step of stack.services.registry.list().filter((s) => s.effect === 'delete')) {
      expect(tool(toolNameOf(step.id)).annotations?.destructiveHint).toBe(true)
    }
  })

  it("offers the caller's one account per platform as the default integration", () => {
    expect(tool('zendesk_get_ticket').inputSchema.properties!.integration).toMatchObject({
      enum: [ZENDESK_ACCOUNT],
      default: ZENDESK_ACCOUNT,
    })
    expect(tool('trello_get_boards').inputSchema.properties!.integration).toMatchObject({
      enum: [expect.any(String)],
    })
    expect(tool('vercel_list_deployments').inputSchema.properties!.integration).toMatchObject({
      enum: [VERCEL_PERSONAL],
      default: VERCEL_PERSONAL,
    })
    expect(tool('zendesk_get_ticket').inputSchema.required).toEqual(['ticket_id'])
  })

  it('with two accounts on a platform, the integration must be chosen, by name', async () => {
    const user = await stack.createUser()
    await connectVercel({ url: stack.url, apiKey: user.apiKey })
    await connectVercel({ url: stack.url, apiKey: user.apiKey }, { teamId: VERCEL.team.id })
    const client = await httpClient(stack.url, user.apiKey)
    try {
      const { tools: listed } = await listAll(client)
      const deployments = listed.find((t) => t.name === 'vercel_list_deployments')!
      expect(deployments.inputSchema.properties!.integration).toEqual(
        expect.objectContaining({ enum: [VERCEL_PERSONAL, VERCEL_TEAM].sort() }),
      )
      expect(deployments.inputSchema.properties!.integration).not.toHaveProperty('default')
      expect(deployments.inputSchema.required).toContain('integration')
      const problem = await callFails(client, 'vercel_list_deployments', {})
      expect(problem).toMatchObject({
        code: 'invalid_input',
        errors: [{ field: 'integration', message: expect.stringContaining(VERCEL_TEAM) }],
      })
      const team = await callOk(client, 'vercel_list_deployments', { integration: VERCEL_TEAM })
      expect(new Set(team.deployments.map((d: any) => d.projectId))).toEqual(new Set([VERCEL.teamProject.id]))
    } finally {
      await client.close()
    }
  })
})

describe('account names', () => {
  it('two accounts of a platform with the same name are offered by id, so each can be chosen', async () => {
    const owner = await stack.createUser()
    const user = (await stack.services.users.authenticateKey(owner.apiKey))!.user
    const save = (externalId: string) =>
      stack.services.integrations.save({
        user,
        platform: 'trello',
        externalId,
        accountName: 'Twin',
        fields: {},
        connectedWith: 'credentials',
        sealedCredentials: 'unused',
        expiresAt: null,
      })
    const ids = [(await save('member-1')).id, (await save('member-2')).id].sort()
    const client = await httpClient(stack.url, owner.apiKey)
    try {
      const boards = (await listAll(client)).tools.find((t) => t.name === 'trello_get_boards')!
      expect((boards.inputSchema.properties!.integration as { enum: string[] }).enum).toEqual(ids)
    } finally {
      await client.close()
    }
  })
})

describe('many accounts (issue 22, §7)', () => {
  it('past 20 accounts of a platform, the listing names none of them and a call must choose one', async () => {
    const owner = await stack.createUser()
    const user = (await stack.services.users.authenticateKey(owner.apiKey))!.user
    for (let i = 0; i < 25; i++)
      await stack.services.integrations.save({
        user,
        platform: 'trello',
        externalId: `member-${i}`,
        accountName: `Account ${String(i).padStart(2, '0')}`,
        fields: {},
        connectedWith: 'credentials',
        sealedCredentials: 'unused',
        expiresAt: null,
      })
    const client = await httpClient(stack.url, owner.apiKey)
    try {
      const boards = (await listAll(client)).tools.find((t) => t.name === 'trello_get_boards')!
      const integration = boards.inputSchema.properties!.integration as Record<string, unknown>
      expect(integration).not.toHaveProperty('enum')
      expect(integration.description).toMatch(/More than 20 are connected/)
      expect(boards.inputSchema.required).toContain('integration')
      // A call naming none is told the first 20 by name, and where the rest are found.
      const failed = await callFails(client, 'trello_get_boards', {})
      expect(failed.code).toBe('invalid_input')
      expect(failed.detail).toContain('Account 00, Account 01')
      expect(failed.detail).not.toContain('Account 20')
      expect(failed.detail).toContain('GET /v1/integrations?q=')
      const found = await client.callTool({ name: 'search_tools', arguments: { query: 'boards' } })
      const match = (
        found.structuredContent as { matches: Array<{ platform: string; accounts: string[] }> }
      ).matches.find((m) => m.platform === 'trello')!
      expect(match.accounts).toHaveLength(20)
    } finally {
      await client.close()
    }
  })
})

describe('calling every tool step against the sandboxes', () => {
  it('runs each step once, and each result matches its output schema', async () => {
    const called = await callEveryStep(mcp, stack)
    expect([...called].sort()).toEqual(
      stack.services.registry
        .list()
        .map((s) => toolNameOf(s.id))
        .sort(),
    )
  })
})

describe('search_tools', () => {
  it('finds steps by platform kind, with the accounts each can act as', async () => {
    const { matches, total } = await callOk(mcp, 'search_tools', { query: 'ticketing', limit: 3 })
    expect(total).toBe(stack.services.registry.search('ticketing').length)
    expect(matches).toHaveLength(3)
    for (const match of matches)
      expect(match).toMatchObject({ platform: 'zendesk', accounts: [ZENDESK_ACCOUNT] })
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(matches.map((m: any) => m.name)))
  })

  it('finds a step by its words, best first', async () => {
    const { matches } = await callOk(mcp, 'search_tools', { query: 'archive card' })
    expect(matches[0].name).toBe('trello_archive_card')
  })

  it('refuses an empty query, naming the field', async () => {
    expect(await callFails(mcp, 'search_tools', { query: ' ' })).toMatchObject({
      code: 'invalid_input',
      errors: [{ field: 'query' }],
    })
  })
})

describe('errors are tool results with the REST problem detail', () => {
  it.each([
    ['a missing field', 'zendesk_create_ticket', { description: 'no subject' }, 'subject'],
    ['a wrong type', 'zendesk_get_ticket', { ticket_id: 'seven' }, 'ticket_id'],
    ['an unknown field', 'trello_get_card', { card_id: TRELLO.board.id, colour: 'red' }, 'colour'],
    [
      'a bad API Call endpoint',
      'zendesk_api_call',
      { method: 'GET', endpoint: '/api/v2/../../admin' },
      'endpoint',
    ],
    // REST refuses these keys; before issue 22 MCP ran the step with them.
    [
      'a __proto__ argument',
      'zendesk_create_ticket',
      JSON.parse('{"subject":"s","description":"d","__proto__":{"admin":true}}'),
      '__proto__',
    ],
    [
      'a nested __proto__ key',
      'zendesk_create_ticket',
      JSON.parse('{"subject":"s","description":"d","tags":["a"],"custom":{"__proto__":{"x":1}}}'),
      'custom.__proto__',
    ],
    [
      'a constructor.prototype key',
      'search_tools',
      JSON.parse('{"query":"ticket","constructor":{"prototype":{"admin":true}}}'),
      'constructor.prototype',
    ],
  ])('%s is invalid_input naming the argument', async (_case, name, args, field) => {
    const problem = await callFails(mcp, name, args)
    expect(problem).toMatchObject({ code: 'invalid_input', status: 400, title: 'Invalid input' })
    expect(problem.errors.map((e: any) => e.field)).toContain(field)
    expect(problem.detail).toContain(field)
  })

  it('a step called with a __proto__ key sends nothing to the platform', async () => {
    await zendeskControl(stack).clearRequests()
    const args = JSON.parse('{"subject":"s","description":"d","__proto__":{"admin":true}}')
    expect(await callFails(mcp, 'zendesk_create_ticket', args)).toMatchObject({ code: 'invalid_input' })
    expect(await zendeskControl(stack).requests()).toEqual([])
  })

  it("an account that is not the caller's is not_found", async () => {
    expect(await callFails(mcp, 'zendesk_list_tickets', { integration: 'someone else' })).toMatchObject({
      code: 'not_found',
    })
  })

  it('an unknown tool is a protocol error (InvalidParams), as MCP says', async () => {
    await expect(mcp.callTool({ name: 'zendesk_burn_ticket', arguments: {} })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    })
  })

  it("a platform's refusal carries the same code and troubleshooting rules as over REST", async () => {
    const control = trelloControl(stack)
    const board = await control.call('POST', '/boards', { name: 'Private', owner: 'grace' })
    const graceToken = await control.mintToken('grace')
    const auth = {
      authorization: `OAuth oauth_consumer_key="${TRELLO.app.key}", oauth_token="${graceToken}"`,
      'content-type': 'application/json',
    }
    const lists = (await (
      await fetch(`${stack.sandboxUrl}/trello/1/boards/${board.body.id ?? board.body.board?.id}/lists`, {
        headers: auth,
      })
    ).json()) as any[]
    const card = (await (
      await fetch(`${stack.sandboxUrl}/trello/1/cards`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ idList: lists[0].id, name: 'secret' }),
      })
    ).json()) as any
    const overMcp = await callFails(mcp, 'trello_get_card', { card_id: card.id })
    const { integrations } = (await rest(stack, stack.apiKey).get('/v1/integrations')).body
    const overRest = await rest(stack, stack.apiKey).run(
      'trello.get_card',
      integrations.find((i: any) => i.platform === 'trello').id,
      { card_id: card.id },
    )
    expect(overMcp).toEqual(overRest.body)
    expect(overMcp.troubleshooting.length).toBeGreaterThan(0)
  })

  it("a platform's rate limit is rate_limited with retry_after", async () => {
    await zendeskControl(stack).fault({
      rate_limit: { retry_after: 120 },
      match: { method: 'GET', path: '/api/v2/users/me.json' },
      times: 1,
    })
    expect(
      await callFails(mcp, 'zendesk_api_call', { method: 'GET', endpoint: '/api/v2/users/me.json' }),
    ).toMatchObject({ code: 'rate_limited', status: 429, retry_after: 120 })
  })
})

describe('tenancy', () => {
  it("another user sees none of the first user's accounts and cannot act as them", async () => {
    const other = await stack.createUser()
    const client = await httpClient(stack.url, other.apiKey)
    try {
      const { tools: listed } = await listAll(client)
      expect(listed.map((t) => t.name)).toEqual(tools.map((t) => t.name))
      const text = JSON.stringify(listed)
      const { integrations } = (await rest(stack, stack.apiKey).get('/v1/integrations')).body
      for (const integration of integrations)
        expect(text).not.toContain(JSON.stringify(integration.account_name))
      for (const listedTool of listed.slice(6))
        expect(Object.keys(listedTool.inputSchema.properties!.integration)).toEqual(['type', 'description'])
      for (const integration of integrations) {
        const problem = await callFails(client, `${integration.platform}_api_call`, {
          integration: integration.id,
          method: 'GET',
          endpoint: '/x',
        })
        expect(JSON.stringify(problem)).not.toContain(integration.account_name)
      }
      const search = await callOk(client, 'search_tools', { query: 'ticket' })
      for (const match of search.matches) expect(match.accounts).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('a platform with no connected account still lists its tools, and calling one says how to connect', async () => {
    const other = await stack.createUser()
    const client = await httpClient(stack.url, other.apiKey)
    try {
      const problem = await callFails(client, 'trello_get_boards', {})
      expect(problem).toMatchObject({ code: 'not_found', connect: { page: `${stack.url}/integrations` } })
      expect(problem.detail).toContain('/integrations')
      expect(problem.connect.rest.join(' ')).toContain('POST /v1/integrations/connect {"platform": "trello"}')
      expect(problem.connect.rest.join(' ')).toContain(
        'POST /v1/integrations {"platform": "trello", "credentials": {"key": "…", "token": "…"}}',
      )
    } finally {
      await client.close()
    }
  })
})

describe('the list changes when the caller connects or disconnects', () => {
  it('announces notifications/tools/list_changed on the GET stream, and the next list shows the account', async () => {
    const user = await stack.createUser()
    const client = await httpClient(stack.url, user.apiKey)
    try {
      let changes = 0
      let announced: () => void = () => {}
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changes++
        announced()
      })
      const next = () =>
        new Promise<void>((resolve) => {
          announced = resolve
        })
      const before = (await listAll(client)).tools.find((t) => t.name === 'trello_get_boards')!
      expect(before.inputSchema.properties!.integration).not.toHaveProperty('enum')

      const connected = next()
      const id = await connectTrelloWithToken({
        url: stack.url,
        apiKey: user.apiKey,
        sandboxUrl: stack.sandboxUrl,
      })
      await connected
      const after = (await listAll(client)).tools.find((t) => t.name === 'trello_get_boards')!
      expect((after.inputSchema.properties!.integration as any).enum).toHaveLength(1)

      const disconnected = next()
      expect((await rest(stack, user.apiKey).post(`/v1/integrations/${id}/disconnect`)).status).toBe(200)
      await disconnected
      expect(
        (await listAll(client)).tools.find((t) => t.name === 'trello_get_boards')!.inputSchema.properties!
          .integration,
      ).not.toHaveProperty('enum')
      expect(changes).toBe(2)
    } finally {
      await client.close()
    }
  })
})

describe('shutting down', () => {
  it('the service closes while a client holds its GET stream open', async () => {
    const instance = await buildApp(stack.services)
    await instance.listen({ port: 0, host: '127.0.0.1' })
    const client = await httpClient(
      `http://127.0.0.1:${(instance.server.address() as { port: number }).port}`,
      stack.apiKey,
    )
    await streamOpen(client)
    await instance.close() // never resolves if the stream keeps the connection busy
    await client.close()
  })
})

describe('authentication', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  }
  const post = (path: string, headers: Record<string, string>) =>
    fetch(`${stack.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(initialize),
    })

  it('answers a valid key', async () => {
    const res = await post('/mcp', { authorization: `Bearer ${stack.apiKey}` })
    expect(res.status).toBe(200)
    expect((await res.json()).result.serverInfo.name).toBe('switchyard')
    expect(res.headers.get('mcp-session-id')).toBeNull()
  })

  it.each([
    ['no key', {}],
    ['a wrong key', { authorization: 'Bearer sy_wrong' }],
    ['a key that is not Bearer', { authorization: `Basic ${Buffer.from(`x:${'k'}`).toString('base64')}` }],
  ])('refuses %s with 401 and WWW-Authenticate', async (_case, headers) => {
    const res = await post('/mcp', headers as Record<string, string>)
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="switchyard"/)
    expect(await res.json()).toMatchObject({ code: 'unauthenticated' })
  })

  it('refuses the SDK client without a key', async () => {
    await expect(httpClient(stack.url, '')).rejects.toThrow(/401/)
  })

  it.each([
    ['token', () => stack.apiKey],
    ['access_token', () => stack.apiKey],
    ['api_key', () => stack.apiKey],
    ['x', () => stack.apiKey],
  ])('refuses a key in the query string (?%s=…) even alongside a valid header', async (name, value) => {
    const res = await post(`/mcp?${name}=${encodeURIComponent(value())}`, {
      authorization: `Bearer ${stack.apiKey}`,
    })
    expect(res.status).toBe(400)
    const problem = await res.json()
    expect(problem).toMatchObject({ code: 'invalid_input', errors: [{ field: `query.${name}` }] })
    expect(problem.detail).toContain('Authorization: Bearer')
    expect(JSON.stringify(problem)).not.toContain(stack.apiKey)
  })

  it("ignores the web app's session cookie", async () => {
    const signIn = await fetch(`${stack.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: stack.url },
      body: JSON.stringify({ api_key: stack.apiKey }),
    })
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]
    expect((await post('/mcp', { cookie, origin: stack.url })).status).toBe(401)
  })

  it("a body that is not JSON gets JSON-RPC's parse error", async () => {
    const res = await fetch(`${stack.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stack.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":',
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { code: -32700 } })
  })

  it('the OpenAPI document names /mcp, with Bearer API keys only', async () => {
    const doc = await (await fetch(`${stack.url}/openapi.json`)).json()
    expect(doc.paths['/mcp'].post.security).toEqual([{ apiKey: [] }])
    expect(doc.paths['/mcp'].post.description).toContain('docs/mcp.md')
  })

  it('DELETE is 405: there are no sessions to end', async () => {
    const res = await fetch(`${stack.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${stack.apiKey}` },
    })
    expect(res.status).toBe(405)
  })
})

describe("a POST, checked as the SDK's stateless transport checks it", () => {
  // The endpoint keeps its servers and their transports between POSTs (server-pool.ts), so the checks
  // the SDK's transport made on each POST are made by the endpoint (post-checks.ts): these hold them.
  const SDK_HEADERS = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  }
  const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' })
  const post = (body: unknown, headers: Record<string, string> = {}, key = stack.apiKey) =>
    fetch(`${stack.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...SDK_HEADERS, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  }

  it.each([
    ['an Accept without text/event-stream', ping(1), { accept: 'application/json' }, 406, -32000],
    ['an Accept without application/json', ping(1), { accept: 'text/event-stream' }, 406, -32000],
    ['an unsupported MCP-Protocol-Version', ping(1), { 'mcp-protocol-version': '1999-01-01' }, 400, -32000],
    ['JSON that is no JSON-RPC message', { hello: 'world' }, {}, 400, -32700],
    ['a batch holding one message that is not JSON-RPC', [ping(1), { id: 2 }], {}, 400, -32700],
    ['a batch of 101 messages', Array.from({ length: 101 }, (_, i) => ping(i)), {}, 400, -32600],
    ['initialize in a batch', [initialize, ping(2)], {}, 400, -32600],
    ['two requests of a batch with one id', [ping(7), ping(7)], {}, 400, -32600],
  ])('%s is refused', async (_case, body, headers, status, code) => {
    const res = await post(body, headers as Record<string, string>)
    expect(res.status).toBe(status)
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code }, id: null })
  })

  it('initialize takes any MCP-Protocol-Version header: the version is negotiated in its body', async () => {
    const res = await post(initialize, { 'mcp-protocol-version': '1999-01-01' })
    expect(res.status).toBe(200)
    expect((await res.json()).result.protocolVersion).toBe('2025-11-25')
  })

  it('a POST of notifications only is accepted with 202 and no body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' })
    expect(res.status).toBe(202)
    expect(await res.text()).toBe('')
  })

  it('a Content-Type with parameters is JSON too', async () => {
    const res = await post(ping(3), { 'content-type': 'application/json; charset=utf-8' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 3, result: {} })
  })

  it('a batch is answered request by request, in its order, leaving out its notifications', async () => {
    const res = await post([
      {
        jsonrpc: '2.0',
        id: 'b',
        method: 'tools/call',
        params: { name: 'search_tools', arguments: { query: 'ticket' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      ping('a'),
      { jsonrpc: '2.0', id: 'c', method: 'no/such/method' },
    ])
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json\b/)
    const answers = await res.json()
    expect(answers.map((a: { id: string }) => a.id)).toEqual(['b', 'a', 'c'])
    expect(answers[0].result.structuredContent.matches.length).toBeGreaterThan(0)
    expect(answers[1].result).toEqual({})
    expect(answers[2].error.code).toBe(ErrorCode.MethodNotFound)
  })

  it('callers whose POSTs overlap, with the same JSON-RPC ids, each get their own answers', async () => {
    const other = await stack.createUser()
    const call = (key: string) =>
      post(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'search_tools', arguments: { query: 'ticket' } },
        },
        {},
        key,
      ).then(async (res) => (await res.json()).result.structuredContent.matches as { accounts: string[] }[])
    const rounds = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(i % 2 === 0 ? stack.apiKey : other.apiKey)),
    )
    rounds.forEach((matches, i) => {
      const offered = matches.flatMap((m) => m.accounts)
      if (i % 2 === 0) expect(offered).toContain(ZENDESK_ACCOUNT)
      else expect(offered).toEqual([])
    })
  })
})

describe('a stream and its credential', () => {
  it('ends the list-changes stream when the API key it was opened with is deleted', async () => {
    const api = rest(stack, stack.apiKey)
    const created = await api.post('/v1/api-keys', { name: 'short-lived' })
    expect(created.status).toBe(201)
    const res = await fetch(`${stack.url}/mcp`, {
      headers: { authorization: `Bearer ${created.body.key}`, accept: 'text/event-stream' },
    })
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    await reader.read() // the opening comment
    expect((await api.delete(`/v1/api-keys/${created.body.id}`)).status).toBe(204)
    const ended = await Promise.race([
      (async () => {
        for (;;) if ((await reader.read()).done) return true
      })(),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000)),
    ])
    expect(ended).toBe(true)
  })
})
