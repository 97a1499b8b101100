import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { callFails, callOk, httpClient, listAll } from './helpers/mcp.ts'
import { waitForRun } from './helpers/runs.ts'
import { client as rest } from './helpers/stack.ts'
import { connectTrelloWithToken } from './helpers/trello.ts'

// Agents and runs over MCP (issue 12 §3), with the SDK's own client.
let stack: TestStack
let mcp: Client
let agentId: string

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  const integration = await connectTrelloWithToken(stack)
  const api = rest(stack, stack.apiKey)
  const created = await api.post('/v1/agents', {
    name: 'Board reader',
    inputs: [{ name: 'note', type: 'string', required: true }],
    kind: 'steps',
    steps: [{ key: 'boards', tool: 'trello.get_boards', integration, input: {} }],
    output: { count: '{{ $count(steps.boards.output.boards) }}', note: '{{ inputs.note }}' },
  })
  agentId = created.body.id
  mcp = await httpClient(stack.url, stack.apiKey)
  await listAll(mcp)
})
afterAll(async () => {
  await mcp?.close()
  await stack?.close()
})

describe('agents and runs over MCP', () => {
  it("lists the caller's agents with their inputs, starts one by name, and reads the run with its timeline", async () => {
    const { agents } = await callOk(mcp, 'list_agents')
    expect(agents).toEqual([
      expect.objectContaining({
        id: agentId,
        name: 'Board reader',
        inputs: [expect.objectContaining({ name: 'note', required: true })],
      }),
    ])
    const started = await callOk(mcp, 'start_agent_run', { agent: 'Board reader', inputs: { note: 'hi' } })
    expect(started.status).toBe('queued')
    await waitForRun(rest(stack, stack.apiKey), started.id)
    const run = await callOk(mcp, 'get_run', { run_id: started.id })
    expect(run.status).toBe('succeeded')
    expect(run.result.note).toBe('hi')
    expect(run.timeline[0]).toMatchObject({
      key: 'boards',
      tool_id: 'trello.get_boards',
      status: 'succeeded',
    })
  })

  it("answers bad arguments and other users' runs as tool errors naming the field", async () => {
    expect(await callFails(mcp, 'start_agent_run', { agent: 'Board reader', inputs: {} })).toMatchObject({
      code: 'invalid_input',
      errors: [{ field: 'inputs.note' }],
    })
    expect(await callFails(mcp, 'start_agent_run', { agent: 'nobody' })).toMatchObject({ code: 'not_found' })
    // Paged as GET /v1/agents is: a page, its next cursor, a search; a made-up cursor is refused by name.
    const page = await callOk(mcp, 'list_agents', { limit: 1, search: 'BOARD' })
    expect(page).toMatchObject({ agents: [{ id: agentId }], next_cursor: null })
    expect((await callOk(mcp, 'list_agents', { search: 'nothing like it' })).agents).toEqual([])
    expect(await callFails(mcp, 'list_agents', { cursor: 'made-up' })).toMatchObject({
      code: 'invalid_input',
      errors: [{ field: 'cursor' }],
    })
    expect(await callFails(mcp, 'list_agents', { limit: 0 })).toMatchObject({
      code: 'invalid_input',
      errors: [{ field: 'limit' }],
    })
    const other = await stack.createUser()
    const theirs = await httpClient(stack.url, other.apiKey)
    try {
      const mine = await callOk(mcp, 'start_agent_run', { agent: agentId, inputs: { note: 'x' } })
      expect(await callFails(theirs, 'get_run', { run_id: mine.id })).toMatchObject({ code: 'not_found' })
      expect((await callOk(theirs, 'list_agents')).agents).toEqual([])
    } finally {
      await theirs.close()
    }
  })
})
