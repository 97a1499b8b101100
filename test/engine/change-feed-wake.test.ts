import { describe, expect, it } from 'vitest'
import { type TestStack, twoInstances } from '../helpers/test-stack.ts'
import { client } from '../helpers/stack.ts'
import { waitFor } from '../helpers/trello-engine.ts'
import { connectVercel } from '../helpers/vercel.ts'

// Issue 22, §4: other instances learn of a new run through the store's change feed (LISTEN/NOTIFY on
// PostgreSQL), not by polling for it. Asserted by mechanism: the instance that executes the run has
// its idle poll stretched to an hour and is idle when the run is enqueued on an instance without a
// worker, so only the notification can wake it; and it is seen to arrive. PostgreSQL only (on PGlite
// one process owns the store).
const postgres = process.env.TEST_DATABASE_URL ? describe : describe.skip
if (!process.env.TEST_DATABASE_URL)
  console.warn('change-feed-wake: skipped, it needs PostgreSQL (TEST_DATABASE_URL)')

const HOUR_MS = 60 * 60 * 1000

postgres('a run enqueued on one instance', () => {
  let front: TestStack
  let back: TestStack

  // The front answers REST and has no worker; the back shares its database (and the front's
  // sandboxes, where a run's steps go) and executes runs.
  twoInstances(
    (first, second) => {
      front = first
      back = second
    },
    { first: { engine: false }, second: { runIdlePollMs: HOUR_MS } },
  )

  it('is picked up by another instance woken by the change feed, not by its poll', async () => {
    const api = client(front, front.apiKey)
    const heard: string[] = []
    back.services.store.changes.subscribe((kind) => heard.push(kind))
    const integration = (await connectVercel(front)).integrationId!
    const agent = await api.post('/v1/agents', {
      name: 'Lists deployments',
      kind: 'steps',
      steps: [{ key: 'list', tool: 'vercel.list_deployments', integration, input: { limit: 1 } }],
      output: {},
    })
    expect(agent.status, agent.text).toBe(201)
    // The back's worker has made its first claim and waits: its next look of its own is an hour away.
    const worker = back.services.worker as unknown as { wakeUp: (() => void) | null }
    await waitFor('the worker to be idle', async () => worker.wakeUp !== null)

    const started = await api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })
    expect(started.status, started.text).toBe(201)
    const run = await waitFor('the run to finish', async () => {
      const r = (await api.get(`/v1/runs/${started.body.id}`)).body
      return (r.status === 'succeeded' || r.status === 'failed') && r
    })
    expect(run.status, JSON.stringify(run.error)).toBe('succeeded')
    expect(heard).toContain('runs')
  })
})
