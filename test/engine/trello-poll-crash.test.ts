import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSandboxServer } from '../../src/sandboxes/server.ts'
import type { TestStack } from '../helpers/test-stack.ts'
import { connectTrelloOAuth } from '../helpers/connect-trello.ts'
import {
  notifiedAgentSubscribed,
  runsOf,
  trelloEngineSuite,
  waitFor,
  type Api,
} from '../helpers/trello-engine.ts'
import {
  adminKey,
  removeDataDir,
  serviceEnv,
  startService,
  type ServiceEnv,
  type ServiceProcess,
} from '../helpers/service-process.ts'
import { client, controlCaller } from '../helpers/stack.ts'
import { act } from '../helpers/trello-triggers.ts'
import { TRELLO } from '../helpers/trello.ts'
import { scratchDatabase } from '../helpers/scratch-database.ts'

// Crash during a poll (docs/architecture.md, "Polls"): the events a poll finds, their runs and the
// new cursor commit together. A failure after the runs are inserted and before the cursor is stored
// (here the database refusing the cursor's update, inside the same transaction) must leave no run and
// the old cursor, so the next poll finds the same notifications again and runs each exactly once.
describe('crash during a Trello poll', () => {
  let stack: TestStack, api: Api, ada: string
  trelloEngineSuite((engine) => {
    ;({ stack, api, ada } = engine)
  })

  it('a failure between enqueue and cursor commit loses nothing and runs nothing twice', async () => {
    const db = stack.services.store.db
    const { sub } = await notifiedAgentSubscribed(api, ada)
    const row = () =>
      db.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow()
    // "Poll now", as a person asks for it: an idle poller sleeps until told (issue 22, §2).
    const pollNow = async () => expect((await api.post(`/v1/subscriptions/${sub.id}/poll`)).status).toBe(200)
    // The first poll only sets the cursor.
    const baseline = await waitFor('the first poll', async () =>
      (await row()).poll_cursor ? row() : undefined,
    )
    expect(await runsOf(stack, sub.id)).toEqual([])

    const texts = ['@ada one', '@ada two', '@ada three']
    for (const text of texts)
      await act(stack, 'grace', 'POST', `/1/cards/${TRELLO.cards.api.id}/actions/comments`, { text })

    await sql`create or replace function poll_test_refuse() returns trigger language plpgsql as $$
      begin raise exception 'the cursor commit failed (test)'; end $$`.execute(db)
    await sql
      .raw(
        `create trigger poll_test_refuse before update of poll_cursor on subscriptions for each row
      when (new.id = '${sub.id}' and new.poll_cursor is distinct from old.poll_cursor) execute function poll_test_refuse()`,
      )
      .execute(db)
    try {
      const failedAt = new Date()
      await pollNow()
      await waitFor('the failed poll', async () => {
        const r = await row()
        return r.last_error_at !== null && r.last_error_at >= failedAt
      })
      expect((await row()).last_error).toMatch(/cursor commit failed/) // it failed there, after finding the three
      expect((await row()).poll_cursor).toEqual(baseline.poll_cursor)
      expect(await runsOf(stack, sub.id)).toEqual([]) // the runs went with the cursor
      const events = await db
        .selectFrom('events')
        .select('id')
        .where('source', '=', `poll:${sub.id}`)
        .execute()
      expect(events).toEqual([])
    } finally {
      await sql`drop trigger if exists poll_test_refuse on subscriptions`.execute(db)
      await sql`drop function if exists poll_test_refuse()`.execute(db)
    }

    await pollNow()
    await waitFor('three runs', async () => (await runsOf(stack, sub.id)).length >= 3)
    await waitFor(
      'the cursor moved',
      async () => JSON.stringify((await row()).poll_cursor) !== JSON.stringify(baseline.poll_cursor),
    )
    // One more poll finds nothing new.
    const again = new Date()
    await pollNow()
    await waitFor(
      'another poll claimed',
      async () => (await row()).next_poll_at! > new Date(again.getTime() + 5_000),
    )
    await stack.services.poller.stop() // waits for the poll in hand to commit
    const runs = await runsOf(stack, sub.id)
    expect(runs.map((r) => (r.inputs as { text: string }).text).sort()).toEqual([...texts].sort())
    expect((await row()).last_error).toBeNull()
  })
})

// The same, with the process itself killed (SIGKILL) while its poll waits on Trello's answer: the
// subscription stays claimed until the poll lease lapses (60 s), then a poll by the restarted
// process finds the notifications the dead one never committed.
describe('kill -9 during a Trello poll', () => {
  let sandbox: Awaited<ReturnType<typeof startSandboxServer>>
  let env: ServiceEnv | undefined
  let service: ServiceProcess | undefined
  let database: { url: string; drop(): Promise<void> } | undefined

  beforeAll(async () => {
    sandbox = await startSandboxServer({ port: 0 })
    if (process.env.TEST_DATABASE_URL)
      database = await scratchDatabase(process.env.TEST_DATABASE_URL, 'sy_intake_tests_poll')
    env = {
      ...(await serviceEnv(sandbox.url, database?.url)),
      extra: { SWITCHYARD_POLL_INTERVAL_SECONDS: '1' },
    }
  })
  afterAll(async () => {
    await service?.kill9()
    await sandbox?.close()
    await database?.drop()
    removeDataDir(env)
  })

  it('loses no notification and runs none twice', async () => {
    const control = controlCaller(`${sandbox.url}/trello/_control`)
    service = await startService(env!)
    const stack = { url: service.url, apiKey: adminKey(env!) }
    const api = client(stack, stack.apiKey)
    const ada = (await connectTrelloOAuth(stack)).integrationId!
    const { sub } = await notifiedAgentSubscribed(api, ada)
    const reads = async () =>
      (
        (await control('GET', '/requests?limit=1000')).body.requests as Array<{
          path: string
          status: number | null
        }>
      ).filter((r) => r.path.includes('/1/members/me/notifications') && r.status === 200).length
    // A second read means the first poll (which only sets the cursor) has committed.
    await waitFor('two polls', async () => (await reads()) >= 2)

    const texts = ['@ada first', '@ada second', '@ada third']
    for (const text of texts)
      await control('POST', '/act', {
        member: 'grace',
        method: 'POST',
        path: `/1/cards/${TRELLO.cards.api.id}/actions/comments`,
        params: { text },
      })
    await control('POST', '/faults', {
      latency_ms: 5000,
      times: 1,
      match: { method: 'GET', path: '/1/members/me/notifications' },
    })
    // The fault is used up once a poll's read is waiting on it: that poll is in flight.
    await waitFor('a poll in flight', async () => (await control('GET', '/faults')).body.faults.length === 0)
    await service.kill9()
    service = await startService(env!)

    const runsOf = async () =>
      (await api.get(`/v1/runs?subscription_id=${sub.id}&limit=200`)).body.runs as Array<{
        inputs: { text: string }
      }>
    await waitFor('a run per notification', async () => (await runsOf()).length >= texts.length, 120_000)
    // Two more polls after the runs: still one run each.
    const after = await reads()
    await waitFor('two more polls', async () => (await reads()) >= after + 2)
    expect((await runsOf()).map((r) => r.inputs.text).sort()).toEqual([...texts].sort())
  }, 240_000)
})
