import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SubscriptionRow } from '../../src/core/triggers/subscriptions.ts'
import { startTestStack, type TestStack } from '../helpers/test-stack.ts'
import { client } from '../helpers/stack.ts'
import { connectAda, notifiedAgentSubscribed, runsOf, waitFor } from '../helpers/trello-engine.ts'
import { act } from '../helpers/trello-triggers.ts'
import { TRELLO } from '../helpers/trello.ts'

// Issue 22, §4: a poll's claim is checked when it writes its cursor, so a poll slower than its claim
// cannot move the cursor back. Here the slow poll has read Trello and waits on the subscription's row
// (held by a second connection, as a commit of another poll would); meanwhile its claim passes to
// another poll, which writes a newer cursor. When the slow poll's write goes through, it must find
// its claim gone and write nothing: no cursor, no events, no runs. The poll is seen waiting in
// pg_stat_activity, so the order is the database's, not a timer's. PostgreSQL only (PGlite has one
// connection, so no second one can hold the row).
const postgres = process.env.TEST_DATABASE_URL ? describe : describe.skip
if (!process.env.TEST_DATABASE_URL)
  console.warn('slow-poll-cursor: skipped, it needs PostgreSQL (TEST_DATABASE_URL)')

postgres('a slow poll', () => {
  let stack: TestStack
  let holder: pg.Client

  beforeAll(async () => {
    // No poller of its own: the test claims and polls by hand, as the poller does.
    stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL, engine: false })
    holder = new pg.Client({ connectionString: stack.databaseUrl })
    await holder.connect()
  }, 120_000)
  afterAll(async () => {
    await holder?.end()
    await stack?.close()
  })

  it('cannot move the cursor back once another poll took its claim', async () => {
    const api = client(stack, stack.apiKey)
    const db = stack.services.store.db
    const ada = await connectAda(stack)
    const { sub } = await notifiedAgentSubscribed(api, ada)
    const poller = stack.services.poller as unknown as { pollOne(row: SubscriptionRow): Promise<void> }
    /** Claims the subscription as the poller does: a later poll time and a fresh claim token. */
    const claim = async (token: string) =>
      (
        await sql<SubscriptionRow>`update subscriptions set poll_claim = ${token},
          next_poll_at = now() + interval '1 hour' where id = ${sub.id} returning *`.execute(db)
      ).rows[0]!
    const row = () =>
      db.selectFrom('subscriptions').selectAll().where('id', '=', sub.id).executeTakeFirstOrThrow()

    await poller.pollOne(await claim('first')) // the first poll only notes where to start
    expect((await row()).poll_cursor).not.toBeNull()
    for (const text of ['@ada one', '@ada two'])
      await act(stack, 'grace', 'POST', `/1/cards/${TRELLO.cards.api.id}/actions/comments`, { text })

    const slow = await claim('slow')
    await holder.query('begin')
    await holder.query('select id from subscriptions where id = $1 for update', [sub.id])
    const polling = poller.pollOne(slow)
    try {
      // The slow poll's write waits on the row this connection holds (its commit is next).
      await waitFor('the slow poll waiting on the row', async () => {
        const { rows } = await holder.query(
          `select 1 from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
            and wait_event_type = 'Lock'`,
        )
        return rows.length > 0
      })
      // Another poll took the claim and wrote a newer cursor meanwhile.
      const newer = { taken_over: 'by a later poll' }
      await holder.query(`update subscriptions set poll_claim = 'later', poll_cursor = $2 where id = $1`, [
        sub.id,
        JSON.stringify(newer),
      ])
      await holder.query('commit')
      await polling
      expect((await row()).poll_cursor).toEqual(newer)
      expect((await row()).poll_claim).toBe('later')
      expect((await row()).last_error).toBeNull() // it read Trello and lost its claim; it did not fail
      const events = await db
        .selectFrom('events')
        .select('id')
        .where('source', '=', `poll:${sub.id}`)
        .execute()
      expect(events).toEqual([])
      expect(await runsOf(stack, sub.id)).toEqual([])
    } finally {
      await holder.query('rollback').catch(() => {})
      await polling.catch(() => {})
    }
  })
})
