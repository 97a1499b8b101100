import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandboxServer } from '../../src/sandboxes/server.ts'
import { connectTrelloOAuth } from '../helpers/connect-trello.ts'
import { CARD_MAPPING, createAgent, subscribe, waitFor } from '../helpers/trello-engine.ts'
import { adminKey, freshDatabase, removeDataDir, serviceEnv, startService, type ServiceEnv, type ServiceProcess } from '../helpers/service-process.ts'
import { client, controlCaller } from '../helpers/stack.ts'

// Crash during a burst (docs/architecture.md, "Acknowledged only when durable"): the service is
// killed with SIGKILL while Trello's deliveries for a burst of new cards are in flight, and comes
// back on the same port inside the sandbox's retry window (retries after 1 s, 5 s and 30 s, as
// Trello's). Every card must give exactly one run: none lost (a 2xx only after the commit, so an
// unanswered delivery is retried) and none twice (a retried one is a duplicate of its action id).
//
// BURST: the issue's 1,000 cards. On this shared 2-core machine they take 117-127 s per store, most
// of it the sandbox's 30 s retry and the runs themselves; ENGINE_BURST sets another count.
const BURST = Number(process.env.ENGINE_BURST ?? 1000)
const KILL_AFTER = Math.floor(BURST / 3)

describe('crash during a burst of Trello deliveries', () => {
  let sandbox: Awaited<ReturnType<typeof startSandboxServer>>
  let env: ServiceEnv
  let service: ServiceProcess | undefined
  let database: { url: string; drop(): Promise<void> } | undefined

  beforeAll(async () => {
    sandbox = await startSandboxServer({ port: 0 })
    if (process.env.TEST_DATABASE_URL) database = await freshDatabase(process.env.TEST_DATABASE_URL, 'sy_intake_tests_burst')
    // More runs at once than the default 8: the burst's 1,000 runs are what takes the time here.
    env = { ...(await serviceEnv(sandbox.url, database?.url)), extra: { SWITCHYARD_RUN_CONCURRENCY: '32' } }
  })
  afterAll(async () => {
    await service?.kill9()
    await sandbox?.close()
    await database?.drop()
    removeDataDir(env)
  })

  it('every card created during a kill -9 and restart produced exactly one run', async () => {
    const control = controlCaller(`${sandbox.url}/trello/_control`)
    await control('PUT', '/rate-limits', { disabled: true }) // the agent's reads are not what is tested
    service = await startService(env)
    const stack = { url: service.url, apiKey: adminKey(env) }
    const api = client(stack, stack.apiKey)
    const ada = (await connectTrelloOAuth(stack)).integrationId!
    const board = (await control('POST', '/boards', { name: 'Burst', owner: 'ada', members: ['grace'] })).body.board
    const list = board.lists[0].id
    const agent = await createAgent(api, {
      name: 'Reader',
      inputs: [{ name: 'title', type: 'string', required: true }, { name: 'card_id', type: 'string', required: true }],
      kind: 'steps',
      steps: [{ key: 'card', tool: 'trello.get_card', integration: ada, input: { idCard: '{{ inputs.card_id }}' } }],
    })
    const sub = await subscribe(api, agent, { trigger: 'trello.new_card', integration: ada, config: { idBoards: [board.id] }, mapping: CARD_MAPPING })

    // Grace makes the cards in parallel batches; the service dies a third of the way in and is
    // started again at once while the rest are still being made and delivered.
    const cardIds: string[] = []
    let restarted: Promise<ServiceProcess> | undefined
    for (let made = 0; made < BURST;) {
      const batch = Math.min(50, BURST - made)
      const created = await Promise.all(Array.from({ length: batch }, (_, i) =>
        control('POST', '/act', { member: 'grace', method: 'POST', path: '/1/cards', params: { idList: list, name: `Burst ${made + i}` } })))
      for (const c of created) {
        expect(c.body.status, JSON.stringify(c.body)).toBe(200)
        cardIds.push(c.body.body.id)
      }
      made += batch
      if (!restarted && made >= KILL_AFTER) {
        const dying = service
        restarted = dying.kill9().then(() => startService(env))
      }
    }
    const t0 = Date.now()
    service = await restarted!
    const phase = (name: string) => console.info(`${name}: ${Date.now() - t0} ms`)
    phase('restarted')
    expect(new Set(cardIds).size).toBe(BURST)

    const settled = await control('GET', '/deliveries?settled=1&timeout_ms=60000')
    expect(settled.body.settled).toBe(true)
    phase('settled')
    // Some deliveries met the dead service; the retries got through.
    const failedAttempts = settled.body.deliveries.filter((d: any) => d.attempts.some((a: any) => a.status !== 200)).length
    expect(failedAttempts).toBeGreaterThan(0)
    expect(settled.body.deliveries.filter((d: any) => d.callback_url.startsWith(service!.url) && d.state !== 'delivered')).toEqual([])

    const runs = await waitFor(`${BURST} runs`, async () => {
      const all = await allRuns(api, sub.id)
      return all.length >= BURST ? all : undefined
    }, 60_000).catch(async (err) => {
      const all = await allRuns(api, sub.id)
      const seen = new Set(all.map((r) => r.inputs.card_id))
      const missing = cardIds.filter((id) => !seen.has(id))
      const deliveries = settled.body.deliveries.filter((d: any) => missing.includes(JSON.parse(d.body).action.data.card.id))
      console.error(`runs ${all.length}, missing ${missing.length}`, JSON.stringify(deliveries.slice(0, 3).map((d: any) => ({ state: d.state, attempts: d.attempts }))))
      throw err
    })
    const perCard = new Map<string, number>()
    for (const run of runs) perCard.set(run.inputs.card_id, (perCard.get(run.inputs.card_id) ?? 0) + 1)
    expect([...perCard.values()].filter((n) => n !== 1)).toEqual([]) // none twice
    expect(cardIds.filter((id) => !perCard.has(id))).toEqual([]) // none lost
    expect(runs).toHaveLength(BURST)
    phase('counted')
    // The runs cut off by the kill are taken over once their lease lapses; all of them finish.
    await waitFor('every run finished', async () => (await allRuns(api, sub.id)).every((r) => r.status === 'succeeded'), 90_000)
    console.info(`burst of ${BURST}: ${failedAttempts} deliveries needed a retry`)
  }, 240_000)
})

async function allRuns(api: ReturnType<typeof client>, subscriptionId: string): Promise<any[]> {
  const out: any[] = []
  let cursor: string | null = null
  do {
    const res: { status: number; body: any; text: string } = await api.get(`/v1/runs?subscription_id=${subscriptionId}&limit=200${cursor ? `&cursor=${cursor}` : ''}`)
    if (res.status !== 200) throw new Error(`runs: ${res.status} ${res.text}`)
    out.push(...res.body.runs)
    cursor = res.body.next_cursor
  } while (cursor)
  return out
}
