import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { expect } from 'vitest'
import { PROBLEM_META } from '../../src/server/mcp/results.ts'

/** The SDK's own client over Streamable HTTP, authenticated as REST callers are. */
export async function httpClient(baseUrl: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'switchyard-tests', version: '0.0.0' })
  // The client opens its GET stream in the background after initializing. Closing it while that
  // request is still on its way leaves a connection the service only drops at its headers timeout,
  // which would hold up closing the test stack; so close waits for the stream to be open first.
  const streams: Array<Promise<unknown>> = []
  const tracked: typeof fetch = (input, init) => {
    const response = fetch(input, init)
    if (init?.method === 'GET') streams.push(response.catch(() => undefined))
    return response
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      fetch: tracked,
    }),
  )
  const close = client.close.bind(client)
  client.close = async () => {
    await Promise.all(streams)
    await close()
  }
  openStreams.set(client, () => Promise.all(streams))
  return client
}

const openStreams = new WeakMap<Client, () => Promise<unknown>>()

/** Resolves once the client's GET stream (the one list changes arrive on) is open. */
export async function streamOpen(client: Client): Promise<void> {
  await openStreams.get(client)?.()
}

/** Every page of tools/list, following cursors. */
export async function listAll(client: Client): Promise<{ tools: Tool[]; pages: number }> {
  const tools: Tool[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const page = await client.listTools(cursor ? { cursor } : {})
    tools.push(...page.tools)
    cursor = page.nextCursor
    pages++
  } while (cursor && pages < 100)
  // listTools remembers only the last page's output schemas; the client checks results against them.
  ;(client as unknown as { cacheToolMetadata(tools: Tool[]): void }).cacheToolMetadata(tools)
  return { tools, pages }
}

/** Calls a tool and expects success; returns its structured result, which the SDK checked against the output schema. */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy()
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent)
  return result.structuredContent
}

/** Calls a tool and expects a tool error; returns its problem detail (the same in _meta and in the text). */
export async function callFails(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBe(true)
  expect(result.structuredContent).toBeUndefined()
  const problem = result._meta?.[PROBLEM_META]
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(problem)
  return problem
}
