import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEngineStack, STORES, waitForRunState, type EngineStack } from '../helpers/engine.ts'
import { callFails, callOk, httpClient } from '../helpers/mcp.ts'
import { client } from '../helpers/stack.ts'
import { connectVercel } from '../helpers/vercel.ts'

// docs/security.md, "Run tokens": a run token acts only on the integrations its agent uses (an
// external agent declares them in external.integrations), over REST and MCP alike. Before, a token
// could call any tool on any of the owner's integrations.

async function startReceiver() {
  const tokens = new Map<string, string>()
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const parsed = JSON.parse(body)
      tokens.set(parsed.run.id, parsed.run_token)
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/runs`,
    tokens,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe.each(STORES)('a run token acts only on its agent’s integrations, on $name', ({ open }) => {
  let e: EngineStack
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let vercel: string
  beforeAll(async () => {
    e = await startEngineStack(await open('run_scope'))
    receiver = await startReceiver()
    vercel = (await connectVercel(e.stack)).integrationId!
  }, 300_000)
  afterAll(async () => {
    await e?.close()
    await receiver?.close()
  })

  /** An external agent declaring `integrations`; answers a live run token of it. */
  async function tokenOf(integrations: string[] | undefined): Promise<{ runId: string; token: string }> {
    const created = await e.api.post('/v1/agents', {
      name: `Scoped ${Math.random()}`,
      kind: 'external',
      external: { url: receiver.url, ...(integrations ? { integrations } : {}) },
    })
    expect(created.status, created.text).toBe(201)
    const started = await e.api.post(`/v1/agents/${created.body.id}/runs`, { inputs: {} })
    expect(started.status, started.text).toBe(201)
    await waitForRunState(e.api, started.body.id, () => receiver.tokens.has(started.body.id))
    return { runId: started.body.id, token: receiver.tokens.get(started.body.id)! }
  }

  it('over REST: the declared integration answers, another of the owner’s is 403 and stays off the timeline', async () => {
    const { runId, token } = await tokenOf([e.integrationId])
    const agentApi = client(e.stack, token)
    expect((await agentApi.run('trello.get_boards', e.integrationId, {})).status).toBe(200)
    const refused = await agentApi.run('vercel.list_deployments', vercel, { limit: 1 })
    expect(refused.status, refused.text).toBe(403)
    expect(refused.body.errors).toEqual([{ field: 'integration', message: expect.stringContaining(vercel) }])
    expect(refused.text).toContain('external.integrations')
    const timeline = (await e.api.get(`/v1/runs/${runId}`)).body.timeline
    expect(timeline.filter((s: any) => s.kind === 'tool_call').map((s: any) => s.tool_id)).toEqual([
      'trello.get_boards',
    ])
    // The owner's API key still reaches both.
    expect((await e.api.run('vercel.list_deployments', vercel, { limit: 1 })).status).toBe(200)
  })

  it('over REST: an agent that declares none reaches no integration', async () => {
    const { token } = await tokenOf(undefined)
    expect((await client(e.stack, token).run('trello.get_boards', e.integrationId, {})).status).toBe(403)
  })

  it('an integration may be declared by its account name', async () => {
    const name = (await e.api.get('/v1/integrations')).body.integrations.find(
      (i: any) => i.id === vercel,
    ).account_name
    const { token } = await tokenOf([name])
    const agentApi = client(e.stack, token)
    expect((await agentApi.run('vercel.list_deployments', vercel, { limit: 1 })).status).toBe(200)
  })

  it('over MCP: the same scope, and an unnamed integration is chosen among the declared ones', async () => {
    const { token } = await tokenOf([e.integrationId])
    const mcp = await httpClient(e.stack.url, token)
    try {
      await callOk(mcp, 'trello_get_boards', { integration: e.integrationId })
      await callOk(mcp, 'trello_get_boards', {})
      const problem = await callFails(mcp, 'vercel_list_deployments', { integration: vercel, limit: 1 })
      expect(problem.status).toBe(403)
      expect(JSON.stringify(problem)).toContain('external.integrations')
      // Vercel is connected, but not for this agent: naming no account does not pick it either.
      expect(JSON.stringify(await callFails(mcp, 'vercel_list_deployments', { limit: 1 }))).not.toContain(
        '"status":200',
      )
    } finally {
      await mcp.close()
    }
  })
})
