import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { client } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// docs/model-agents.md, "Model connections": a key is rotated in place, sealed, never answered back;
// the next model call of a run reads the connection again (src/core/models/run-client.ts).
let stack: TestStack
let api: ReturnType<typeof client>

beforeAll(async () => {
  stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
  api = client(stack, stack.apiKey)
})
afterAll(async () => {
  await stack?.close()
})

describe('rotating a model connection key over REST', () => {
  it('replaces the sealed key in place, keeps the id, and never answers the key back', async () => {
    const created = await api.post('/v1/model-connections', {
      name: 'rotated',
      protocol: 'openai-chat',
      base_url: 'https://api.openai.com/v1',
      api_key: 'sk-old-key-000000',
    })
    expect(created.status, created.text).toBe(201)
    const secret = `sk-${'n3w'.repeat(8)}`
    const rotated = await api.patch(`/v1/model-connections/${created.body.id}`, { api_key: secret })
    expect(rotated.status, rotated.text).toBe(200)
    expect(rotated.body).toMatchObject({ id: created.body.id, name: 'rotated', has_key: true })
    expect(rotated.text).not.toContain(secret)
    const endpoint = await stack.services.modelConnections.endpoint(stack.userId, created.body.id)
    expect(endpoint.apiKey).toBe(secret)
  })

  it.each([
    [{ api_key: '' }, 'api_key'],
    [{ base_url: 'ftp://x.test' }, 'base_url'],
    [{ name: '' }, 'name'],
    [{}, 'api_key'],
  ])('refuses %j with a 400 naming %s', async (change, field) => {
    const created = await api.post('/v1/model-connections', {
      name: `bad ${field} ${Math.random()}`,
      protocol: 'anthropic',
      base_url: 'https://api.anthropic.com',
      api_key: 'sk-ant-old',
    })
    const res = await api.patch(`/v1/model-connections/${created.body.id}`, change)
    expect(res.status, res.text).toBe(400)
    expect(res.body.errors[0].field).toBe(field)
  })
})
