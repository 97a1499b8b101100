import { beforeAll, describe, expect, it } from 'vitest'
import { connectZendesk } from './helpers/connect.ts'
import { scriptedModel, settled, waitForRun } from './helpers/model-agents.ts'
import { client } from './helpers/stack.ts'
import { type TestStack, twoInstances } from './helpers/test-stack.ts'

// Two instances on one PostgreSQL (issue 23): a model run paused for approval on one instance is
// decided through the other, resumed by whichever claims it, and runs its approved call once.
const databaseUrl = process.env.TEST_DATABASE_URL

describe.skipIf(!databaseUrl)('model runs across two instances on PostgreSQL', () => {
  let first: TestStack
  let second: TestStack
  let integration: string

  twoInstances(
    (a, b) => {
      first = a
      second = b
    },
    // Caches that keep a row for an hour: only the change feed can make the first instance drop one.
    { first: { cacheTtlMs: 60 * 60 * 1000 } },
  )
  beforeAll(async () => {
    integration = (await connectZendesk(first)).integrationId!
  }, 120_000)

  it('an approval decided on the other instance resumes the run once', async () => {
    const api = client(first, first.apiKey)
    // The first stack's admin is a user of the shared database: the second answers the same key.
    const other = client(second, first.apiKey)
    const results = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const { body } = await api.run('zendesk.create_ticket', integration, {
          subject: `t${n}`,
          description: 'd',
        })
        const id = body.output.id as number
        const model = await scriptedModel(first, first.apiKey, [
          { tool_calls: [{ name: 'delete_ticket', arguments: { ticket_id: id }, id: `del${n}` }] },
          { text: `deleted ${id}` },
        ])
        const agent = await api.post('/v1/agents', {
          name: `instances ${n} ${Math.random().toString(36).slice(2)}`,
          kind: 'model',
          instructions: 'delete it',
          model: { connection: model.connectionId, name: 'sandbox-model' },
          tools: [{ tool: 'zendesk.delete_ticket', integration }],
        })
        expect(agent.status, agent.text).toBe(201)
        const run = (await api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })).body.id as string
        await waitForRun(api, run, settled)
        const { body: list } = await other.get('/v1/approvals')
        const approval = list.approvals.find((a: any) => a.run_id === run)
        const decided = await other.post(`/v1/approvals/${approval.id}/decide`, {
          decisions: [{ tool_call_id: `del${n}`, decision: 'approve' }],
        })
        expect(decided.status, decided.text).toBe(200)
        const done = await waitForRun(other, run, (r) => settled(r) && r.status !== 'waiting_for_approval')
        return { done, model, id }
      }),
    )
    for (const { done, model, id } of results) {
      expect(done.status, JSON.stringify(done.error)).toBe('succeeded')
      expect(done.timeline.filter((e: any) => e.kind === 'tool_call')).toHaveLength(1)
      expect((await model.calls()).length).toBe(2)
      expect((await api.run('zendesk.get_ticket', integration, { ticket_id: id })).status).toBe(404)
    }
  }, 120_000)

  it('a key replaced through the other instance is the key the next model call here uses', async () => {
    const api = client(first, first.apiKey)
    const other = client(second, first.apiKey)
    const created = await api.post('/v1/model-connections', {
      name: `rotated across instances ${Math.random().toString(36).slice(2)}`,
      protocol: 'openai-chat',
      base_url: `${first.sandboxUrl}/openai/v1`,
      api_key: 'sk-before-rotation',
    })
    expect(created.status, created.text).toBe(201)
    const connections = first.services.modelConnections
    // This instance now holds the connection's row in its cache, as a run's model call leaves it.
    expect((await connections.endpoint(first.userId, created.body.id)).apiKey).toBe('sk-before-rotation')
    const rotated = await other.patch(`/v1/model-connections/${created.body.id}`, {
      api_key: 'sk-after-rotation',
    })
    expect(rotated.status, rotated.text).toBe(200)
    // The notice reaches this instance through PostgreSQL's LISTEN/NOTIFY; its cache would keep the
    // old row for an hour without it.
    let key: string | null = null
    for (let i = 0; i < 200 && key !== 'sk-after-rotation'; i++) {
      key = (await connections.endpoint(first.userId, created.body.id)).apiKey
      if (key !== 'sk-after-rotation') await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(key).toBe('sk-after-rotation')
  })
})
