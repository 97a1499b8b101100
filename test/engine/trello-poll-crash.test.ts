import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from '../../src/server/app.ts'
import { connectAda, createAgent, runsOf, subscribe, waitFor, type Api } from '../helpers/trello-engine.ts'
import { client } from '../helpers/stack.ts'
import { act } from '../helpers/trello-triggers.ts'
import { TRELLO } from '../helpers/trello.ts'

// Crash during a poll (docs/architecture.md, "Polls"): the events a poll finds, their runs and the
// new cursor commit together. A failure after the runs are inserted and before the cursor is stored
// (here the database refusing the cursor's update, inside the same transaction) must leave no run and
// the old cursor, so the next poll finds the same notifications again and runs each exactly once.
describe('crash during a Trello poll', () => {
  let stack: TestStack
  let api: Api
  let ada: string

  beforeAll(async () => {
    stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
    api = client(stack, stack.apiKey)
    ada = await connectAda(stack)
  })
  afterAll(async () => stack?.close())

  it('a failure between enqueue and cursor commit loses nothing and runs nothing twice', async () => {
    const db = stack.services.store.db
    const agent = await createAgent(api, {
      name: 'Notified',
      inputs: [{ name: 'text', type: 'string', required: true }],
      kind: 'steps',
      steps: [{ key: 'me', tool: 'trello.get_card', integration: ada, input: { idCard: TRELLO.cards.api.id } }],
    })
    const sub = await subscribe(api, agent, { trigger: 'trello.new_notification', integration: ada, config: {}, mapping: { text: '{{ text }}' } })
    const row = () => db.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow()
    const pollNow = () => db.updateTable('subscriptions').set({ next_poll_at: new Date(Date.now() - 1000) }).where('id', '=', sub.id).execute()
    // The first poll only sets the cursor.
    const baseline = await waitFor('the first poll', async () => ((await row()).poll_cursor ? row() : undefined))
    expect(await runsOf(stack, sub.id)).toEqual([])

    const texts = ['@ada one', '@ada two', '@ada three']
    for (const text of texts) await act(stack, 'grace', 'POST', `/1/cards/${TRELLO.cards.api.id}/actions/comments`, { text })

    await sql`create or replace function poll_test_refuse() returns trigger language plpgsql as $$
      begin raise exception 'the cursor commit failed (test)'; end $$`.execute(db)
    await sql.raw(`create trigger poll_test_refuse before update of poll_cursor on subscriptions for each row
      when (new.id = '${sub.id}' and new.poll_cursor is distinct from old.poll_cursor) execute function poll_test_refuse()`).execute(db)
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
      const events = await db.selectFrom('events').select('id').where('source', '=', `poll:${sub.id}`).execute()
      expect(events).toEqual([])
    } finally {
      await sql`drop trigger if exists poll_test_refuse on subscriptions`.execute(db)
      await sql`drop function if exists poll_test_refuse()`.execute(db)
    }

    await pollNow()
    await waitFor('three runs', async () => (await runsOf(stack, sub.id)).length >= 3)
    await waitFor('the cursor moved', async () => JSON.stringify((await row()).poll_cursor) !== JSON.stringify(baseline.poll_cursor))
    // One more poll finds nothing new.
    const again = new Date()
    await pollNow()
    await waitFor('another poll claimed', async () => (await row()).next_poll_at! > new Date(again.getTime() + 5_000))
    await stack.services.poller.stop() // waits for the poll in hand to commit
    const runs = await runsOf(stack, sub.id)
    expect(runs.map((r) => (r.inputs as { text: string }).text).sort()).toEqual([...texts].sort())
    expect((await row()).last_error).toBeNull()
  })
})
