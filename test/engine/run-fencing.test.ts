import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isFinished, startEngineStack, STORES, waitForRunState, type EngineStack } from '../helpers/engine.ts'

// Issue 22, section 4: the run lease belonged to the process, not the claim, and step writes did not
// check it. Here the database stalls the lease's renewals (a trigger refuses them) while a write is
// in flight; the lease lapses, the sweep re-queues the run, and the same process claims it again.
// The stale execution must stop acting: its write lands once, its later writes are refused, and its
// next step is never sent. The lease is one second, so the sweep hands the run on within seconds;
// the write in flight takes twelve (the sandbox holds it), so the hand-over happens while it waits.
describe.each(STORES)('a claim that lost its run writes nothing, on $name', ({ open }) => {
  let e: EngineStack

  beforeAll(async () => {
    e = await startEngineStack(await open('fencing'), { config: { runLeaseMs: 1_000 } })
  }, 120_000)
  afterAll(async () => e?.close())

  const cardsNamed = async (name: string) => {
    const { body } = await e.control.call('POST', '/act', {
      member: 'ada',
      method: 'GET',
      path: `/1/lists/${e.listId}/cards`,
    })
    return (body.body as Array<{ name: string }>).filter((c) => c.name === name).length
  }

  it('a stalled execution whose run was claimed again sends no write twice and overwrites nothing', async () => {
    const db = e.stack.services.store.db
    const agent = await e.api.post('/v1/agents', {
      name: 'Fenced',
      kind: 'steps',
      steps: [
        {
          key: 'first',
          tool: 'trello.create_card',
          integration: e.integrationId,
          input: { list_id: e.listId, name: 'fence first' },
        },
        {
          key: 'second',
          tool: 'trello.create_card',
          integration: e.integrationId,
          input: { list_id: e.listId, name: 'fence second' },
        },
      ],
    })
    expect(agent.status, agent.text).toBe(201)
    await sql`create or replace function fence_test_stall() returns trigger language plpgsql as $$
      begin raise exception 'the database stalled (test)'; end $$`.execute(db)
    await sql
      .raw(
        `create trigger fence_test_stall before update of lease_expires_at on runs for each row
        when (old.status = 'running' and new.status = 'running' and old.agent_id = '${agent.body.id}')
        execute function fence_test_stall()`,
      )
      .execute(db)
    await e.control.fault({ latency_ms: 12_000, match: { method: 'POST', path: '/1/cards' }, times: 1 })
    const started = await e.api.post(`/v1/agents/${agent.body.id}/runs`, { inputs: {} })
    expect(started.status, started.text).toBe(201)
    const runId = started.body.id as string
    const row = () =>
      db
        .selectFrom('runs')
        .select(['executions', 'lapses', 'status'])
        .where('id', '=', runId)
        .executeTakeFirstOrThrow()
    try {
      for (let i = 0; i < 600 && (await row()).executions < 2; i++)
        await new Promise((resolve) => setTimeout(resolve, 50))
      expect((await row()).executions, 'the sweep handed the run to a new claim').toBe(2)
    } finally {
      await sql`drop trigger if exists fence_test_stall on runs`.execute(db)
      await sql`drop function if exists fence_test_stall()`.execute(db)
    }
    // The new claim finds the first write in flight and does not send it again (docs/agents.md).
    const run = await waitForRunState(e.api, runId, isFinished, 60_000)
    // The stale execution returns once its slow write is answered; stop waits for it.
    await e.stack.services.worker.stop()
    expect(run.status).toBe('failed')
    const after = await waitForRunState(e.api, runId, isFinished)
    expect(after.timeline.map((s: any) => [s.key, s.status, s.error?.code])).toEqual([
      ['first', 'failed', 'interrupted'],
    ])
    expect(await cardsNamed('fence first')).toBe(1)
    expect(await cardsNamed('fence second')).toBe(0)
    expect(await row()).toEqual({ executions: 2, lapses: 1, status: 'failed' })
  }, 180_000)
})
