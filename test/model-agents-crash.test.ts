import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandboxServer } from '../src/sandboxes/server.ts'
import { connectZendesk } from './helpers/connect.ts'
import { scriptedModel, settled, waitForRun } from './helpers/model-agents.ts'
import {
  adminKey,
  removeDataDir,
  serviceEnv,
  startService,
  type ServiceEnv,
  type ServiceProcess,
} from './helpers/service-process.ts'
import { client } from './helpers/stack.ts'

// A real `kill -9` of `switchyard start` while a model run waits for a person, and while a model
// call is in flight (issue 23): the run resumes from its stored transcript in the next process.
// On PostgreSQL too when TEST_DATABASE_URL is set, through the same processes.

let sandbox: Awaited<ReturnType<typeof startSandboxServer>>
let env: ServiceEnv
let service: ServiceProcess
let api: ReturnType<typeof client>
let integration: string
const target = () => ({ url: service.url, sandboxUrl: sandbox.url })

beforeAll(async () => {
  sandbox = await startSandboxServer({ port: 0 })
  env = await serviceEnv(sandbox.url, process.env.TEST_DATABASE_URL ? await scratch() : undefined)
  // A killed process's runs are claimed again after this lease.
  env.extra = { SWITCHYARD_RUN_LEASE_MS: '1500' }
  service = await startService(env, 240_000)
  api = client(service, adminKey(env))
  integration = (await connectZendesk({ url: service.url, apiKey: adminKey(env) })).integrationId!
}, 300_000)
afterAll(async () => {
  await service?.stop()
  await sandbox?.close()
  await dropScratch?.()
  removeDataDir(env)
})

let dropScratch: (() => Promise<void>) | undefined
async function scratch(): Promise<string> {
  const { scratchDatabase } = await import('./helpers/scratch-database.ts')
  const db = await scratchDatabase(process.env.TEST_DATABASE_URL!)
  dropScratch = db.drop
  return db.url
}

async function restart(): Promise<void> {
  await service.kill9()
  service = await startService(env, 240_000)
  api = client(service, adminKey(env))
}

async function agent(connection: string) {
  const { status, body } = await api.post('/v1/agents', {
    name: `crash ${Math.random().toString(36).slice(2)}`,
    kind: 'model',
    inputs: [{ name: 'ticket_id', type: 'number' }],
    instructions: 'Read ticket {{ inputs.ticket_id }}.',
    model: { connection, name: 'sandbox-model' },
    tools: [
      { tool: 'zendesk.get_ticket', integration },
      { tool: 'zendesk.delete_ticket', integration },
    ],
  })
  expect(status, JSON.stringify(body)).toBe(201)
  return body.id as string
}

async function ticket(): Promise<number> {
  const { body } = await api.run('zendesk.create_ticket', integration, {
    subject: 'Printer',
    description: 'fire',
  })
  return body.output.id
}

describe('model runs survive kill -9', () => {
  it('a run waiting for approval survives a kill -9: the next process lists it, and approving resumes it', async () => {
    const id = await ticket()
    const model = await scriptedModel(target(), adminKey(env), [
      { tool_calls: [{ name: 'delete_ticket', arguments: { ticket_id: id }, id: 'del' }] },
      { text: 'deleted' },
    ])
    const runId = (
      await api.post(`/v1/agents/${await agent(model.connectionId)}/runs`, { inputs: { ticket_id: id } })
    ).body.id
    expect((await waitForRun(api, runId, settled)).status).toBe('waiting_for_approval')
    await restart()
    const { body } = await api.get('/v1/approvals')
    const approval = body.approvals.find((a: any) => a.run_id === runId)
    expect(approval?.calls?.[0]?.tool_call_id).toBe('del')
    const decided = await api.post(`/v1/approvals/${approval.id}/decide`, {
      decisions: [{ tool_call_id: 'del', decision: 'approve' }],
    })
    expect(decided.status, JSON.stringify(decided.body)).toBe(200)
    const run = await waitForRun(api, runId, (r) => settled(r) && r.status !== 'waiting_for_approval', 30_000)
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.timeline.find((e: any) => e.key === 'del').status).toBe('succeeded')
    expect((await api.run('zendesk.get_ticket', integration, { ticket_id: id })).status).toBe(404)
    // The model was asked twice in all: its first answer was stored and never asked for again.
    expect((await model.calls()).length).toBe(2)
  }, 300_000)

  it('a model call in flight at a kill -9 is asked again in the same entry; the stored answers are not', async () => {
    const id = await ticket()
    const model = await scriptedModel(target(), adminKey(env), [
      { tool_calls: [{ name: 'get_ticket', arguments: { ticket_id: id }, id: 'r1' }] },
      // The second call is slow: the process is killed while it waits for it.
      { text: 'never delivered', fault: { latency_ms: 60_000 } },
      { text: 'read it' },
    ])
    const runId = (
      await api.post(`/v1/agents/${await agent(model.connectionId)}/runs`, { inputs: { ticket_id: id } })
    ).body.id
    await waitForRun(api, runId, (r) =>
      r.timeline?.some(
        (e: any) => e.key === 'model#2' && e.attempts.some((a: any) => a.outcome === 'running'),
      ),
    )
    await restart()
    const run = await waitForRun(api, runId, settled, 30_000)
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    const models = run.timeline.filter((e: any) => e.kind === 'model_call')
    expect(models.map((e: any) => e.key)).toEqual(['model#1', 'model#2'])
    expect(models[1].attempts[0]).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining('interrupted'),
    })
    // model#1's stored answer was not asked for again: the tool call it asked for ran once.
    expect(run.timeline.filter((e: any) => e.kind === 'tool_call')).toHaveLength(1)
  }, 300_000)
})
