import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { isFinished, startEngineStack, STORES, waitForRunState, type EngineStack } from '../helpers/engine.ts'

// Issue 10, "Cancel": a queued run is cancelled at once; a running one stops before its next step;
// a finished one cannot be cancelled (409). One run at a time here, so a second run stays queued
// behind a slow first one.

describe.each(STORES)('cancelling runs, on $name', ({ open }) => {
  let e: EngineStack
  beforeAll(async () => {
    e = await startEngineStack(await open('cancel'), { config: { runConcurrency: 1 } })
  })
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
  const write = (name: string) => ({
    key: 'write',
    tool: 'trello.create_card',
    integration: e.integrationId,
    input: { list_id: e.listId, name },
  })
  const slowBoards = () =>
    e.control.fault({ latency_ms: 2_000, match: { method: 'GET', path: '/1/members/me/boards' }, times: 1 })
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

describe.each(STORES)('cancelling a run during a retry wait, on $name', ({ open }) => {
  let e: EngineStack
  // The first wait is long enough (2.25 s or more, with jitter) for the cancel to land inside it; the
  // second is past the longest inline wait, so the run goes back to the queue for it.
  beforeAll(async () => {
    e = await startEngineStack(await open('cancelwait'), { backoff: { stepMs: [3_000, 40_000] } })
  })
  afterAll(async () => e?.close())

  beforeEach(async () => {
    await e.control.clearFaults()
    await e.control.clearRequests()
  })

  it('stops before the next attempt: the platform sees no more requests', async () => {
    await e.control.fault({ status: 503, match: { method: 'GET', path: '/1/members/me/boards' } })
    const agent = await e.api.post('/v1/agents', {
      name: 'Cancel in a wait',
      kind: 'steps',
      steps: [{ key: 'read', tool: 'trello.get_boards', integration: e.integrationId, input: {} }],
    })
    const runId = (await e.api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })).body.id
    await waitForRunState(e.api, runId, (r) => r.timeline?.[0]?.attempts?.[0]?.retry_in_ms !== undefined)
    expect((await e.api.post(`/v1/runs/${runId}/cancel`)).status).toBe(200)

    const run = await waitForRunState(e.api, runId, isFinished)
    expect(run.status).toBe('cancelled')
    expect(run.timeline[0]).toMatchObject({ status: 'failed', error: { code: 'cancelled' } })
    expect(run.timeline[0].attempts).toHaveLength(1)
    expect(run.timeline[0].attempts[0].retry_in_ms).toBeUndefined()
    // One attempt is the API client's own 4 requests (core/limits/retry.ts); a second would be 4 more.
    expect((await e.control.requests()).filter((r) => r.path.includes('/1/members/me/boards'))).toHaveLength(
      4,
    )
  })

  it('a run back in the queue for its next attempt cancels at once, and its step ends with it', async () => {
    await e.control.fault({ status: 503, match: { method: 'GET', path: '/1/members/me/boards' } })
    const agent = await e.api.post('/v1/agents', {
      name: 'Cancel while queued for a retry',
      kind: 'steps',
      steps: [{ key: 'read', tool: 'trello.get_boards', integration: e.integrationId, input: {} }],
    })
    const runId = (await e.api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })).body.id
    await waitForRunState(
      e.api,
      runId,
      (r) => r.status === 'queued' && r.timeline?.[0]?.attempts?.length === 2,
    )
    const cancelled = await e.api.post(`/v1/runs/${runId}/cancel`)
    expect(cancelled.body.status).toBe('cancelled')
    const entry = cancelled.body.timeline[0]
    expect(entry).toMatchObject({ status: 'failed', error: { code: 'cancelled' } })
    expect(entry.attempts.map((a: any) => a.outcome)).toEqual(['failed', 'failed'])
    expect(entry.attempts.every((a: any) => a.retry_in_ms === undefined)).toBe(true)
  }, 60_000)
})
