import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { isFinished, startEngineStack, STORES, waitForRunState, type EngineStack } from '../helpers/engine.ts'

// Issue 10, "Retries": a read step is tried again with backoff after a transient failure, every
// attempt on the timeline; a write is tried again only when the platform said it did not process it
// (429), never after a 5xx, which may have done it. The API client retries a single request up to
// 4 times first (core/limits/retry.ts), so the faults below outlast it.
const CLIENT_ATTEMPTS = 4

describe.each(STORES)('a platform outage, on $name', ({ open }) => {
  let e: EngineStack
  beforeAll(async () => {
    e = await startEngineStack(await open('outage'))
  })
  afterAll(async () => e?.close())
  beforeEach(async () => {
    await e.control.clearFaults()
    await e.control.clearRequests()
  })

  const startRun = async (steps: unknown[]) => {
    const agent = await e.api.post('/v1/agents', { name: `Outage ${Math.random()}`, kind: 'steps', steps })
    expect(agent.status, agent.text).toBe(201)
    const run = await e.api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })
    expect(run.status, run.text).toBe(201)
    return waitForRunState(e.api, run.body.id, isFinished)
  }
  const cardPosts = async () =>
    (await e.control.requests()).filter((r) => r.method === 'POST' && /\/1\/cards$/.test(r.path))
  const newCard = async () =>
    (await e.api.run('trello.create_card', e.integrationId, { list_id: e.listId, name: 'outage target' }))
      .body.output.id as string

  it('a read step retries with backoff after 503s, and every attempt is on the timeline', async () => {
    const cardId = await newCard()
    await e.control.fault({
      status: 503,
      match: { method: 'GET', path: '/1/cards/' },
      times: 2 * CLIENT_ATTEMPTS,
    })
    const run = await startRun([
      { key: 'read', tool: 'trello.get_card', integration: e.integrationId, input: { card_id: cardId } },
    ])
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    const attempts = run.timeline[0].attempts
    expect(attempts.map((a: any) => a.outcome)).toEqual(['failed', 'failed', 'succeeded'])
    for (const failed of attempts.slice(0, 2)) {
      expect(failed.error).toBeTruthy()
      expect(failed.status).toBe(503)
      expect(failed.retry_in_ms).toBeGreaterThanOrEqual(0)
    }
    expect(attempts[2].retry_in_ms).toBeUndefined()
  })

  it('a read step that never gets through fails after its last attempt, each one recorded', async () => {
    const cardId = await newCard()
    await e.control.fault({ status: 503, match: { method: 'GET', path: '/1/cards/' } })
    const run = await startRun([
      { key: 'read', tool: 'trello.get_card', integration: e.integrationId, input: { card_id: cardId } },
    ])
    expect(run.status).toBe('failed')
    expect(run.error).toMatchObject({ code: 'upstream_error', step: 'read' })
    const attempts = run.timeline[0].attempts
    expect(attempts).toHaveLength(4)
    expect(attempts.every((a: any) => a.outcome === 'failed' && a.status === 503)).toBe(true)
    expect(attempts.slice(0, 3).every((a: any) => typeof a.retry_in_ms === 'number')).toBe(true)
    expect(attempts[3].retry_in_ms).toBeUndefined() // the last one is not followed by a wait
  })

  it('a write step answered 500 is not retried: it fails, and the platform saw it once', async () => {
    await e.control.fault({ status: 500, match: { method: 'POST', path: '/1/cards' }, times: 1 })
    const run = await startRun([
      {
        key: 'write',
        tool: 'trello.create_card',
        integration: e.integrationId,
        input: { list_id: e.listId, name: 'only once' },
      },
    ])
    expect(run.status).toBe('failed')
    expect(run.error).toMatchObject({ step: 'write' })
    expect(run.timeline[0].attempts).toHaveLength(1)
    expect(run.timeline[0].attempts[0]).toMatchObject({ outcome: 'failed', status: 500 })
    expect(run.timeline[0].attempts[0].retry_in_ms).toBeUndefined()
    expect((await cardPosts()).map((r) => r.status)).toEqual([500])
  })

  it('a write step refused with 429 and Retry-After is retried after that wait, and creates one card', async () => {
    await e.control.fault({
      rate_limit: { retry_after: 1 },
      match: { method: 'POST', path: '/1/cards' },
      times: CLIENT_ATTEMPTS,
    })
    const run = await startRun([
      {
        key: 'write',
        tool: 'trello.create_card',
        integration: e.integrationId,
        input: { list_id: e.listId, name: 'after the limit' },
      },
    ])
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    const attempts = run.timeline[0].attempts
    expect(attempts.map((a: any) => a.outcome)).toEqual(['failed', 'succeeded'])
    expect(attempts[0].retry_in_ms).toBe(1000) // Retry-After: 1, not the step backoff
    expect(Date.parse(attempts[1].at) - Date.parse(attempts[0].at)).toBeGreaterThanOrEqual(1000)
    const posts = await cardPosts()
    expect(posts.map((r) => r.status)).toEqual([...Array(CLIENT_ATTEMPTS).fill(429), 200])
  })
})

// A retry's wait that a worker holds in hand (docs/agents.md, "Retries"): stopping the process must not
// sit it out, and must not lose it either.
describe.each(STORES)('a worker stopping during a retry wait, on $name', ({ open }) => {
  let e: EngineStack
  beforeAll(async () => {
    e = await startEngineStack(await open('stop_wait'), {
      backoff: { stepMs: [3_000, 3_000, 3_000], deliveryMs: [50, 50, 50] },
    })
  })
  afterAll(async () => e?.close())
  const newCard = async () =>
    (await e.api.run('trello.create_card', e.integrationId, { list_id: e.listId, name: 'stop target' })).body
      .output.id as string

  it('a worker that stops while a step waits to retry hands the run back at its retry time, and the retry still happens', async () => {
    // A wait this long is held in hand (under MAX_INLINE_WAIT_MS); the stop must not sit it out.
    const worker = e.stack.services.worker
    const cardId = await newCard()
    await e.control.fault({
      status: 503,
      match: { method: 'GET', path: '/1/cards/' },
      times: CLIENT_ATTEMPTS,
    })
    const agent = await e.api.post('/v1/agents', {
      name: `Stopping ${Math.random()}`,
      kind: 'steps',
      steps: [
        { key: 'read', tool: 'trello.get_card', integration: e.integrationId, input: { card_id: cardId } },
      ],
    })
    const started = await e.api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })
    const waiting = await waitForRunState(
      e.api,
      started.body.id,
      (r) => r.timeline[0]?.attempts?.length === 1 && r.timeline[0].attempts[0].retry_in_ms !== undefined,
    )
    await worker.stop()
    const handedBack = (await e.api.get(`/v1/runs/${started.body.id}`)).body
    expect(handedBack.status).toBe('queued')
    expect(handedBack.timeline[0].attempts.map((a: any) => a.outcome)).toEqual(['failed'])
    worker.start()
    const run = await waitForRunState(e.api, started.body.id, isFinished)
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect(run.timeline[0].attempts.map((a: any) => a.outcome)).toEqual(['failed', 'succeeded'])
    // Not earlier than the wait it had been promised (the database's clock decides the claim: a few ms' leeway).
    expect(Date.parse(run.timeline[0].attempts[1].at)).toBeGreaterThanOrEqual(
      Date.parse(waiting.timeline[0].attempts[0].at) + waiting.timeline[0].attempts[0].retry_in_ms - 50,
    )
  })
})
