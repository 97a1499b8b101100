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

describe('who may rotate a model connection', () => {
  const connection = (caller: ReturnType<typeof client>, name: string, shared = false) =>
    caller.post('/v1/model-connections', {
      name: `${name} ${Math.random().toString(36).slice(2)}`,
      protocol: 'anthropic',
      base_url: 'https://api.anthropic.com',
      api_key: 'sk-ant-before',
      ...(shared ? { shared: true } : {}),
    })

  it('a shared connection: any admin changes it, a member who can use it gets 403 and changes nothing', async () => {
    const shared = await connection(api, 'shared', true)
    expect(shared.status, shared.text).toBe(201)
    const id = shared.body.id
    const member = client(stack, (await stack.createUser('enterprise', 'member')).apiKey)
    const otherAdmin = client(stack, (await stack.createUser('enterprise', 'admin')).apiKey)
    // The member sees it (to use it), so a refusal says why rather than pretending it is not there.
    const seen = (await member.get('/v1/model-connections')).body.model_connections
    expect(seen.map((c: { id: string }) => c.id)).toContain(id)
    const refused = await member.patch(`/v1/model-connections/${id}`, { api_key: 'sk-ant-member' })
    expect(refused.status, refused.text).toBe(403)
    expect(refused.body.detail).toBe('only an admin changes a shared model connection')
    expect(refused.text).not.toContain('sk-ant-member')
    const removal = await member.delete(`/v1/model-connections/${id}`)
    expect(removal.status, removal.text).toBe(403)
    expect(removal.body.detail).toBe('only an admin removes a shared model connection')
    expect((await stack.services.modelConnections.endpoint(stack.userId, id)).apiKey).toBe('sk-ant-before')

    const rotated = await otherAdmin.patch(`/v1/model-connections/${id}`, { api_key: 'sk-ant-admin' })
    expect(rotated.status, rotated.text).toBe(200)
    expect(rotated.body).toMatchObject({ id, shared: true, owner: 'shared', has_key: true })
    expect((await stack.services.modelConnections.endpoint(stack.userId, id)).apiKey).toBe('sk-ant-admin')
  })

  it('an admin who shared a connection and is no longer one cannot change it any more', async () => {
    const former = await stack.createUser('enterprise', 'admin')
    const formerApi = client(stack, former.apiKey)
    const shared = await connection(formerApi, 'theirs', true)
    expect(shared.status, shared.text).toBe(201)
    const demoted = await api.patch(`/v1/users/${former.id}`, { role: 'member' })
    expect(demoted.status, demoted.text).toBe(200)
    const refused = await formerApi.patch(`/v1/model-connections/${shared.body.id}`, { api_key: 'sk-ant-x' })
    expect(refused.status, refused.text).toBe(403)
  })

  it("one's own connection is one's own to change; another person's answers 404 like a missing one, admin or not", async () => {
    const memberUser = await stack.createUser('enterprise', 'member')
    const member = client(stack, memberUser.apiKey)
    const own = await connection(member, 'own')
    expect(own.status, own.text).toBe(201)
    const rotated = await member.patch(`/v1/model-connections/${own.body.id}`, { api_key: 'sk-ant-mine' })
    expect(rotated.status, rotated.text).toBe(200)
    expect(rotated.body).toMatchObject({ id: own.body.id, owner: 'you', shared: false })
    expect((await stack.services.modelConnections.endpoint(memberUser.id, own.body.id)).apiKey).toBe(
      'sk-ant-mine',
    )

    const adminsOwn = await connection(api, 'admin private')
    const missing = await member.patch('/v1/model-connections/mc_does_not_exist', { api_key: 'sk-ant-y' })
    expect(missing.status, missing.text).toBe(404)
    for (const [caller, id] of [
      [member, adminsOwn.body.id],
      [api, own.body.id], // an admin does not reach into a member's own connection either
    ] as const) {
      const res = await caller.patch(`/v1/model-connections/${id}`, { api_key: 'sk-ant-y' })
      expect(res.status, res.text).toBe(404)
      expect(res.body.detail).toBe(`model connection ${id} not found`)
      expect((await caller.delete(`/v1/model-connections/${id}`)).status).toBe(404)
    }
    expect((await stack.services.modelConnections.endpoint(memberUser.id, own.body.id)).apiKey).toBe(
      'sk-ant-mine',
    )
  })

  it('the sandbox model is nobody’s to change: 403 for an admin too', async () => {
    const res = await api.patch('/v1/model-connections/mc_sandbox', { api_key: 'sk-x' })
    expect(res.status, res.text).toBe(403)
    expect(res.body.detail).toMatch(/sandbox model/)
  })
})
