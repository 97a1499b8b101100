import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../../bench/processes.ts'
import { startSandboxServer } from '../../src/sandboxes/server.ts'
import { connectTrelloOAuth } from '../helpers/connect-trello.ts'
import { CARD_MAPPING, createAgent, subscribe, waitFor } from '../helpers/trello-engine.ts'
import {
  adminKey,
  removeDataDir,
  serviceEnv,
  startBalancer,
  startService,
  type ServiceEnv,
  type ServiceProcess,
} from '../helpers/service-process.ts'
import { client, controlCaller } from '../helpers/stack.ts'
import { TRELLO } from '../helpers/trello.ts'
import { scratchDatabase } from '../helpers/scratch-database.ts'

// Several instances on one PostgreSQL (docs/scaling.md): two `switchyard start` processes behind a
// load balancer that takes turns and skips a dead one. Deliveries reach either and are accepted once,
// each run executes on one of them, each polled subscription is polled by one at a time (so no
// notification runs twice), and killing one loses nothing. PGlite is one process's own: skipped there.
const PG = process.env.TEST_DATABASE_URL
const CARDS_PER_PHASE = 100
const MENTIONS_PER_PHASE = 5

describe.skipIf(!PG)('several instances on one PostgreSQL (PostgreSQL only)', () => {
  let sandbox: Awaited<ReturnType<typeof startSandboxServer>>
  let database: { url: string; drop(): Promise<void> }
  let balancer: Awaited<ReturnType<typeof startBalancer>>
  const alive: ServiceProcess[] = []
  let db: pg.Client
  let base: ServiceEnv | undefined

  beforeAll(async () => {
    sandbox = await startSandboxServer({ port: 0 })
    database = await scratchDatabase(PG!, 'sy_intake_tests_multi')
    balancer = await startBalancer(() => alive.map((s) => s.url))
  })
  afterAll(async () => {
    for (const s of alive) await s.kill9()
    await db?.end()
    await balancer?.close()
    await sandbox?.close()
    await database?.drop()
    removeDataDir(base)
  })

  it('deliveries to either are accepted once, runs execute once, polls do not overlap, and killing one loses nothing', async () => {
    const control = controlCaller(`${sandbox.url}/trello/_control`)
    await control('PUT', '/rate-limits', { disabled: true })
    base = await serviceEnv(sandbox.url, database.url)
    const envOf = async (): Promise<ServiceEnv> => ({
      ...base!,
      port: await freePort(),
      publicUrl: balancer.url,
      extra: { SWITCHYARD_POLL_INTERVAL_SECONDS: '1' },
    })
    alive.push(await startService(await envOf())) // the first start makes the admin and its key file
    alive.push(await startService(await envOf()))
    const [first] = alive
    db = new pg.Client({ connectionString: database.url })
    await db.connect()
    const stack = { url: balancer.url, apiKey: adminKey(base!) }
    const api = client(stack, stack.apiKey)
    const ada = (await connectTrelloOAuth(stack)).integrationId!
    const board = (await control('POST', '/boards', { name: 'Shared', owner: 'ada', members: ['grace'] }))
      .body.board
    const agent = await createAgent(api, {
      name: 'Reader',
      inputs: [
        { name: 'title', type: 'string', required: true },
        { name: 'card_id', type: 'string', required: true },
      ],
      kind: 'steps',
      steps: [
        {
          key: 'card',
          tool: 'trello.get_card',
          integration: ada,
          input: { card_id: '{{ inputs.card_id }}' },
        },
      ],
    })
    const cards = await subscribe(api, agent, {
      trigger: 'trello.new_card',
      integration: ada,
      config: { board_ids: [board.id] },
      mapping: CARD_MAPPING,
    })
    const notified = await subscribe(api, agent, {
      trigger: 'trello.new_notification',
      integration: ada,
      config: {},
      mapping: { title: '{{ text }}', card_id: '{{ card.id }}' },
    })
    await waitFor(
      'the first poll',
      async () =>
        (await db.query('select poll_cursor from subscriptions where id = $1', [notified.id])).rows[0]
          .poll_cursor,
    )

    const made: string[] = []
    const mentions: string[] = []
    const burst = async (phase: string) => {
      for (let i = 0; i < CARDS_PER_PHASE; i += 25) {
        const created = await Promise.all(
          Array.from({ length: 25 }, (_, j) =>
            control('POST', '/act', {
              member: 'grace',
              method: 'POST',
              path: '/1/cards',
              params: { idList: board.lists[0].id, name: `${phase} ${i + j}` },
            }),
          ),
        )
        made.push(...created.map((c) => c.body.body.id))
      }
      for (let i = 0; i < MENTIONS_PER_PHASE; i++) {
        const text = `@ada ${phase} mention ${i}`
        await control('POST', '/act', {
          member: 'grace',
          method: 'POST',
          path: `/1/cards/${TRELLO.cards.api.id}/actions/comments`,
          params: { text },
        })
        mentions.push(text)
      }
    }
    const runs = async () =>
      (
        await db.query<{
          subscription_id: string
          inputs: any
          status: string
          executions: number
          event: any
        }>('select subscription_id, inputs, status, executions, event from runs where not test')
      ).rows
    const check = async (expectFinished: boolean) => {
      const all = await waitFor(
        'every run',
        async () => {
          const found = await runs()
          const enough =
            found.filter((r) => r.subscription_id === cards.id).length >= made.length &&
            found.filter((r) => r.subscription_id === notified.id).length >= mentions.length
          return enough && (!expectFinished || found.every((r) => r.status === 'succeeded'))
            ? found
            : undefined
        },
        90_000,
      )
      const perCard = count(all.filter((r) => r.subscription_id === cards.id).map((r) => r.inputs.card_id))
      expect([...perCard.entries()].filter(([, n]) => n !== 1)).toEqual([])
      expect(made.filter((id) => !perCard.has(id))).toEqual([])
      const perNotification = count(
        all.filter((r) => r.subscription_id === notified.id).map((r) => r.event.notification.id),
      )
      expect([...perNotification.values()].filter((n) => n !== 1)).toEqual([])
      expect(
        all
          .filter((r) => r.subscription_id === notified.id)
          .map((r) => r.inputs.title)
          .sort(),
      ).toEqual([...mentions].sort())
      return all
    }

    // Both alive: the balancer alternates, so each instance takes deliveries; every run executes once.
    await burst('both')
    const settled = await control('GET', '/deliveries?settled=1&timeout_ms=60000')
    expect(settled.body.settled).toBe(true)
    const both = await check(true)
    expect(alive.map((s) => balancer.answered.get(s.url) ?? 0).every((n) => n > 0)).toBe(true) // each took deliveries
    expect(both.filter((r) => r.executions !== 1)).toEqual([])
    // The two pollers never polled the subscription at the same moment: its claims are serialised by the database.
    const reads = (
      (await control('GET', '/requests?limit=1000')).body.requests as Array<{
        path: string
        at: string
        duration_ms: number
      }>
    )
      .filter((r) => r.path.includes('/1/members/me/notifications'))
      .map((r) => ({ from: Date.parse(r.at), to: Date.parse(r.at) + r.duration_ms }))
      .sort((a, b) => a.from - b.from)
    // At least the first poll and the one that found the mentions; how many more depends on the machine's pace.
    expect(reads.length).toBeGreaterThanOrEqual(2)
    expect(reads.filter((r, i) => i > 0 && r.from < reads[i - 1]!.to)).toEqual([])

    // One dies in the middle of the next burst; the other takes over its deliveries and its runs.
    const dying = burst('one')
    await new Promise((resolve) => setTimeout(resolve, 200))
    await first!.kill9()
    alive.splice(alive.indexOf(first!), 1)
    await dying
    expect((await control('GET', '/deliveries?settled=1&timeout_ms=60000')).body.settled).toBe(true)
    await check(true)
  }, 240_000)
})

function count(keys: string[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const key of keys) out.set(key, (out.get(key) ?? 0) + 1)
  return out
}
