import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { type TestStack, twoInstances } from './helpers/test-stack.ts'
import { callOk, httpClient, listAll } from './helpers/mcp.ts'
import { client as rest } from './helpers/stack.ts'
import { connectTrelloWithToken } from './helpers/trello.ts'

// /mcp keeps no sessions, so behind a load balancer each request may land on another instance.
// Two instances on one PostgreSQL database stand in for that.
describe.runIf(process.env.TEST_DATABASE_URL)('MCP across instances on PostgreSQL', () => {
  let a: TestStack
  let b: TestStack
  twoInstances((first, second) => {
    a = first
    b = second
  })

  it('a client initialized on one instance lists and calls on the other', async () => {
    const user = await a.createUser()
    await connectTrelloWithToken({ url: a.url, apiKey: user.apiKey, sandboxUrl: a.sandboxUrl })
    const onA = await httpClient(a.url, user.apiKey)
    const onB = await httpClient(b.url, user.apiKey)
    try {
      expect((await listAll(onB)).tools).toEqual((await listAll(onA)).tools)
      expect((await callOk(onB, 'trello_get_boards')).boards.length).toBeGreaterThan(0)
    } finally {
      await onA.close()
      await onB.close()
    }
  })

  it('an integration connected through one instance is announced on a stream held by the other', async () => {
    const user = await a.createUser()
    const onB = await httpClient(b.url, user.apiKey)
    try {
      const changed = new Promise<void>((resolve) =>
        onB.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
      )
      await listAll(onB)
      const id = await connectTrelloWithToken({ url: a.url, apiKey: user.apiKey, sandboxUrl: a.sandboxUrl })
      await changed
      const boards = (await listAll(onB)).tools.find((t) => t.name === 'trello_get_boards')!
      expect((boards.inputSchema.properties!.integration as { enum: string[] }).enum).toHaveLength(1)
      expect((await rest(a, user.apiKey).delete(`/v1/integrations/${id}`)).status).toBe(204)
    } finally {
      await onB.close()
    }
  }, 30_000)
})
