import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settled, waitForRun } from './helpers/model-agents.ts'
import { client, controlCaller } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// docs/security.md and docs/model-agents.md, "Model connections": a connection's base URL is an
// address a user typed, held to the same networks as an external agent's address. Under
// SWITCHYARD_AGENT_NETWORKS=public (the production default) a model server on the service's own
// machine or private network is refused when saved, and never called by a run.
let stack: TestStack
let api: ReturnType<typeof client>

beforeAll(async () => {
  stack = await startTestStack({
    databaseUrl: process.env.TEST_DATABASE_URL,
    config: { agentNetworks: 'public' },
  })
  api = client(stack, stack.apiKey)
})
afterAll(async () => {
  await stack?.close()
})

describe('a model connection outside public networks is refused, and never called', () => {
  it.each([
    ['a loopback address (a local Ollama)', 'http://127.0.0.1:11434/v1', '127.0.0.1'],
    ['localhost', 'http://localhost:11434/v1', 'localhost'],
    ['localhost in capitals, with its root dot', 'http://LOCALHOST.:1234/v1', 'localhost'],
    ['a name under localhost', 'http://vllm.localhost/v1', 'vllm.localhost'],
    ['IPv6 loopback', 'http://[::1]:8000/v1', '::1'],
    ['IPv4 loopback written as IPv6', 'http://[::ffff:127.0.0.1]/v1', '::ffff:7f00:1'],
    ['IPv4 loopback in the deprecated IPv4-compatible form', 'http://[::7f00:1]/v1', '::7f00:1'],
    ['loopback written as one number', 'http://2130706433/v1', '127.0.0.1'],
    ['loopback written in hex', 'http://0x7f.0.0.1/v1', '127.0.0.1'],
    ['the unspecified address', 'http://0.0.0.0:8000/v1', '0.0.0.0'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['a private network address (LM Studio on the LAN)', 'http://192.168.1.20:1234/v1', '192.168.1.20'],
    ['a 10/8 address', 'https://10.0.0.7/v1', '10.0.0.7'],
    ['a carrier-grade NAT address', 'http://100.64.0.1/v1', '100.64.0.1'],
    ['an IPv6 unique local address', 'http://[fd00::1]/v1', 'fd00::1'],
  ])('an openai-compatible base URL at %s is refused with 400 naming base_url', async (_name, url, host) => {
    const created = await api.post('/v1/model-connections', {
      name: `inside ${randomUUID()}`,
      protocol: 'openai-compatible',
      base_url: url,
    })
    expect(created.status, created.text).toBe(400)
    expect(created.body.errors).toEqual([{ field: 'base_url', message: expect.stringContaining(host) }])
    expect(created.body.errors[0].message).toMatch(/not a public address.*SWITCHYARD_AGENT_NETWORKS=any/)
  })

  it.each([
    ['anthropic', 'http://127.0.0.1:4010/anthropic'],
    ['openai-chat', 'http://[::1]/v1'],
  ])('a %s connection on loopback is refused the same way, key or not', async (protocol, url) => {
    const created = await api.post('/v1/model-connections', {
      name: `inside ${randomUUID()}`,
      protocol,
      base_url: url,
      api_key: 'sk-never-shown-1234',
    })
    expect(created.status, created.text).toBe(400)
    expect(created.body.errors[0].field).toBe('base_url')
    expect(created.text).not.toContain('sk-never-shown-1234')
  })

  it('a public base URL is accepted: nothing is contacted when saving', async () => {
    const created = await api.post('/v1/model-connections', {
      name: `public ${randomUUID()}`,
      protocol: 'openai-compatible',
      base_url: 'https://models.example.com/v1',
    })
    expect(created.status, created.text).toBe(201)
    expect(created.body.base_url).toBe('https://models.example.com/v1')
  })

  it('a run of a connection saved before the deployment chose public fails as forbidden, and the model server is never called', async () => {
    // A scenario on the OpenAI sandbox, bound to its own key: its call log shows whether anything came.
    const key = `sk-${randomUUID()}`
    const control = controlCaller(`${stack.sandboxUrl}/openai/_control`)
    const scenario = await control('POST', '/scenarios', { api_key: key, turns: [{ text: 'never' }] })
    expect(scenario.status).toBe(201)
    const created = await api.post('/v1/model-connections', {
      name: `earlier ${randomUUID()}`,
      protocol: 'openai-chat',
      base_url: 'https://models.example.com/v1',
      api_key: key,
    })
    expect(created.status, created.text).toBe(201)
    // Saved while every network was allowed: the row now points at the sandbox on loopback.
    await stack.services.store.db
      .updateTable('model_connections')
      .set({ base_url: `${stack.sandboxUrl}/openai/v1` })
      .where('id', '=', created.body.id)
      .execute()
    const agent = await api.post('/v1/agents', {
      name: `inside ${randomUUID()}`,
      kind: 'model',
      instructions: 'Answer.',
      model: { connection: created.body.id, name: 'sandbox-model' },
    })
    expect(agent.status, agent.text).toBe(201)
    const started = await api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })
    expect(started.status, started.text).toBe(201)
    const run = await waitForRun(api, started.body.id, settled)
    expect(run.status).toBe('failed')
    expect(run.error.code).toBe('forbidden')
    expect(run.error.message).toMatch(/127\.0\.0\.1 is not a public address/)
    expect(JSON.stringify(run)).not.toContain(key)
    const calls = await control('GET', `/calls?scenario=${scenario.body.id}`)
    expect(calls.body.calls).toEqual([])
  })
})

describe('an approval webhook outside public networks is refused', () => {
  it.each([
    ['loopback', 'http://127.0.0.1:9000/hooks', '127.0.0.1'],
    ['the cloud metadata address', 'http://169.254.169.254/hooks', '169.254.169.254'],
    ['localhost', 'http://localhost/hooks', 'localhost'],
  ])('a webhook at %s is refused with 400 naming url', async (_name, url, host) => {
    const answer = await api.put('/v1/approval-webhook', { url })
    expect(answer.status, answer.text).toBe(400)
    expect(answer.body.errors).toEqual([{ field: 'url', message: expect.stringContaining(host) }])
  })
})
