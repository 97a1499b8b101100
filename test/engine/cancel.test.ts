import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { isFinished, startEngineStack, STORES, waitForRunState, type EngineStack } from '../helpers/engine.ts'

// Issue 10, "Cancel": a queued run is cancelled at once; a running one stops before its next step;
// a finished one cannot be cancelled (409). One run at a time here, so a second run stays queued
// behind a slow first one.

describe.each(STORES)('cancelling runs, on $name', ({ open }) => {
  let e: EngineStack
  beforeAll(async () => { e = await startEngineStack(await open('cancel'), { config: { runConcurrency: 1 } }) })
  afterAll(async () => e?.close())
  beforeEach(async () => {
    await e.control.clearFaults()
    await e.control.clearRequests()
  })

  const agentWith = async (steps: unknown[]) => {
    const agent = await e.api.post('/v1/agents', { name: `Cancel ${Math.random()}`, kind: 'steps', steps })
    expect(agent.status, agent.text).toBe(201)
    return agent.body.id as string
  }
  const start = async (agentId: string) => {
    const run = await e.api.post(`/v1/agents/${agentId}/runs`, { inputs: {} })
    expect(run.status, run.text).toBe(201)
    return run.body.id as string
  }
  const slowRead = () => ({ key: 'slow', tool: 'trello.get_boards', integration: e.integrationId, input: {} })
  const write = (name: string) => ({ key: 'write', tool: 'trello.create_card', integration: e.integrationId, input: { idList: e.listId, name } })
  const slowBoards = () => e.control.fault({ latency_ms: 2_000, match: { method: 'GET', path: '/1/members/me/boards' }, times: 1 })
  const inSlowStep = (run: any) => run.timeline?.[0]?.key === 'slow' && run.timeline[0].status === 'running'

  it('a queued run is cancelled at once and never executes', async () => {
    await slowBoards()
    const blocker = await start(await agentWith([slowRead()]))
    await waitForRunState(e.api, blocker, inSlowStep)
    const queued = await start(await agentWith([write('cancelled while queued')]))
    expect((await e.api.get(`/v1/runs/${queued}`)).body.status).toBe('queued')

    const cancelled = await e.api.post(`/v1/runs/${queued}/cancel`)
    expect(cancelled.status, cancelled.text).toBe(200)
    expect(cancelled.body).toMatchObject({ status: 'cancelled', error: { code: 'cancelled' } })
    expect(cancelled.body.finished_at).toBeTruthy()

    await waitForRunState(e.api, blocker, isFinished)
    const after = await start(await agentWith([slowRead()])) // the worker has moved past the cancelled run
    await waitForRunState(e.api, after, isFinished)
    const run = (await e.api.get(`/v1/runs/${queued}`)).body
    expect(run.status).toBe('cancelled')
    expect(run.timeline).toEqual([])
    expect((await e.control.requests()).filter((r) => r.method === 'POST')).toEqual([])
  })

  it('a running run stops before its next step', async () => {
    await slowBoards()
    const runId = await start(await agentWith([slowRead(), write('never written')]))
    await waitForRunState(e.api, runId, inSlowStep)
    const asked = await e.api.post(`/v1/runs/${runId}/cancel`)
    expect(asked.status, asked.text).toBe(200)
    expect(['running', 'cancelled']).toContain(asked.body.status)

    const run = await waitForRunState(e.api, runId, isFinished)
    expect(run.status).toBe('cancelled')
    expect(run.error.code).toBe('cancelled')
    expect(run.timeline.map((s: any) => s.key)).toEqual(['slow'])
    expect((await e.control.requests()).filter((r) => r.method === 'POST')).toEqual([])
  })

  it('a finished run cannot be cancelled: 409, and it stays as it ended', async () => {
    const succeeded = await waitForRunState(e.api, await start(await agentWith([slowRead()])), isFinished)
    expect(succeeded.status).toBe('succeeded')
    const refused = await e.api.post(`/v1/runs/${succeeded.id}/cancel`)
    expect(refused.status).toBe(409)
    expect(refused.body.detail).toMatch(/already succeeded/)
    expect((await e.api.get(`/v1/runs/${succeeded.id}`)).body.status).toBe('succeeded')

    await slowBoards()
    const twice = await start(await agentWith([slowRead()]))
    await waitForRunState(e.api, twice, inSlowStep)
    await e.api.post(`/v1/runs/${twice}/cancel`)
    await waitForRunState(e.api, twice, isFinished)
    expect((await e.api.post(`/v1/runs/${twice}/cancel`)).status).toBe(409)
  })
})
