import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandboxServer } from '../../src/sandboxes/server.ts'
import { freshPostgres, isFinished, waitForRunState, type FreshStore } from '../helpers/engine.ts'
import { createUserIn, startInstance, type Instance } from '../helpers/instances.ts'
import { client } from '../helpers/stack.ts'
import { connectTrelloWithToken, trelloControl } from '../helpers/trello.ts'

// DESIGN.md §5 and docs/architecture.md ("Runs are their own queue"): instances on one PostgreSQL
// claim runs with FOR UPDATE SKIP LOCKED under a lease, so each run executes once, and the runs of
// an instance that dies are taken over by the others. PGlite is one process's store, so this is
// PostgreSQL only; under CI=true TEST_DATABASE_URL is required (test/setup/ci-requirements.ts).

const RUNS = 100
const CONCURRENCY = 4
const postgres = process.env.TEST_DATABASE_URL ? describe : describe.skip
if (!process.env.TEST_DATABASE_URL)
  console.warn('several-instances: skipped, it needs PostgreSQL (set TEST_DATABASE_URL)')

postgres('several instances on one PostgreSQL', () => {
  let fresh: FreshStore
  let sandbox: Awaited<ReturnType<typeof startSandboxServer>>
  const instances: Instance[] = []
  let db: pg.Client

  beforeAll(async () => {
    fresh = await freshPostgres('instances')
    sandbox = await startSandboxServer({ port: 0 })
    db = new pg.Client({ connectionString: fresh.databaseUrl })
    await db.connect()
  })
  afterAll(async () => {
    for (const instance of instances) await instance.stop()
    await db?.end()
    await sandbox?.close()
    await fresh?.drop()
  })

  it('execute each of 100 runs once, enqueued through either, and lose none when one is killed', async () => {
    const at = (n: number) => ({
      databaseUrl: fresh.databaseUrl!,
      dataDir: fs.mkdtempSync(path.join(os.tmpdir(), `sy-inst${n}-`)),
    })
    const { apiKey } = await createUserIn(at(0))
    const env = { SWITCHYARD_RUN_CONCURRENCY: String(CONCURRENCY) }
    instances.push(await startInstance(at(1), sandbox.url, env), await startInstance(at(2), sandbox.url, env))
    const [a, b] = instances.map((instance) => client(instance, apiKey))
    const integrationId = await connectTrelloWithToken({
      url: instances[0].url,
      apiKey,
      sandboxUrl: sandbox.url,
    })
    const listId = (await a.run('trello.get_boards', integrationId, {})).body.output.boards[0].lists[0].id
    const agent = await b.post('/v1/agents', {
      name: 'One card per run',
      kind: 'steps',
      inputs: [{ name: 'n', type: 'string', required: true }],
      steps: [
        { key: 'boards', tool: 'trello.get_boards', integration: integrationId, input: {} },
        {
          key: 'card',
          tool: 'trello.create_card',
          integration: integrationId,
          input: { list_id: listId, name: 'multi {{ inputs.n }}' },
        },
      ],
    })
    expect(agent.status, agent.text).toBe(201)
    // Slow writes keep runs in flight long enough for the kill to land among them.
    await trelloControl({ sandboxUrl: sandbox.url }).fault({
      latency_ms: 400,
      match: { method: 'POST', path: '/1/cards' },
    })

    const started = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        (i % 2 ? a : b).post(`/v1/agents/${agent.body.id}/runs`, { inputs: { n: String(i) } }),
      ),
    )
    expect(started.map((r) => r.status)).toEqual(Array(RUNS).fill(201))
    const finishedCount = async () =>
      Number(
        (await db.query(`select count(*) from runs where status in ('succeeded', 'failed', 'cancelled')`))
          .rows[0].count,
      )
    const holders = new Set<string>()
    const deadline = Date.now() + 60_000
    while ((await finishedCount()) < RUNS / 5 && Date.now() < deadline) {
      for (const row of (
        await db.query(
          `select distinct lease_holder from runs where status = 'running' and lease_holder is not null`,
        )
      ).rows)
        holders.add(row.lease_holder)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(holders.size, 'both instances execute runs').toBe(2)
    await instances[0].kill9()
    expect(await finishedCount(), 'the kill should land mid-way').toBeLessThan(RUNS)

    const runs = []
    for (const r of started) runs.push(await waitForRunState(b, r.body.id, isFinished, 60_000))
    const { body: cards } = await trelloControl({ sandboxUrl: sandbox.url }).call('POST', '/act', {
      member: 'ada',
      method: 'GET',
      path: `/1/lists/${listId}/cards`,
    })
    const cardsNamed = (name: string) =>
      (cards.body as Array<{ name: string }>).filter((c) => c.name === name).length
    const executions = new Map(
      (await db.query('select id, executions from runs')).rows.map((row) => [row.id, Number(row.executions)]),
    )

    let reclaimed = 0
    for (const [i, run] of runs.entries()) {
      const card = run.timeline.find((s: any) => s.key === 'card')
      // A write in flight at the kill is failed as interrupted, never sent again; everything else succeeds.
      if (run.status !== 'succeeded') {
        expect(run.error, JSON.stringify(run)).toMatchObject({ code: 'interrupted', step: 'card' })
        expect(cardsNamed(`multi ${i}`)).toBeLessThanOrEqual(1)
      } else {
        expect(cardsNamed(`multi ${i}`), `run ${i}`).toBe(1)
      }
      if (card) expect(card.attempts, `run ${i}`).toHaveLength(1)
      if (executions.get(run.id)! > 1) reclaimed++
      else
        expect(
          run.timeline.every((s: any) => s.attempts.length === 1),
          JSON.stringify(run.timeline),
        ).toBe(true)
    }
    console.info(
      `several-instances: ${reclaimed} runs taken over, ${runs.filter((r) => r.status === 'failed').length} writes interrupted`,
    )
    // Only the runs the killed instance held were executed again.
    expect(reclaimed).toBeLessThanOrEqual(CONCURRENCY)
    expect(runs.filter((r) => r.status === 'failed').length).toBeLessThanOrEqual(CONCURRENCY)
    expect([...executions.values()].every((n) => n >= 1)).toBe(true)
  }, 180_000)
})
