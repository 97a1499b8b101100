import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { untilABackendWaitsForALock } from './helpers/lock-wait.ts'
import { client } from './helpers/stack.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// "No 5xx" (README): a user's removal meets their own activity on PostgreSQL. A run ending, a claim
// or a delivery stored locks a row of the user's first and checks the user's row last (a foreign
// key's "for key share"); the removal holds the user's row while it deletes the rest. When the two
// wait on each other PostgreSQL rolls one back, and a removal chosen so answered 500 (the season
// suite saw it, test/engine/season.test.ts). It is tried again (store/deadlocks.ts) and answers 200.
// The deadlock is made on purpose, in the order PostgreSQL's detector makes the removal its victim:
// the transaction that waited first is the one whose check finds the cycle.

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'a user removed while their rows are in use, on PostgreSQL',
  () => {
    let stack: TestStack
    let other: pg.Client
    beforeAll(async () => {
      stack = await startTestStack({ databaseUrl: process.env.TEST_DATABASE_URL })
      other = new pg.Client({ connectionString: stack.databaseUrl })
      await other.connect()
    })
    afterAll(async () => {
      await other?.end()
      await stack?.close()
    })

    it('answers 200 when PostgreSQL breaks a deadlock by rolling the removal back', async () => {
      const member = await stack.createUser()
      const [key] = (await other.query('select id from api_keys where user_id = $1', [member.id])).rows
      // Another transaction checks a row against the user, as a foreign key does, and holds on.
      await other.query('begin')
      await other.query('select 1 from users where id = $1 for key share', [member.id])

      const removal = client(stack, stack.apiKey).delete(`/v1/users/${member.id}`)
      // The removal has deleted the user's key and now waits to delete the user's row: its only wait.
      await untilABackendWaitsForALock(other, 'the removal')
      // The other transaction now wants the key the removal deleted: each waits on the other.
      // It goes on only once the removal was rolled back: the key is still there to update.
      const touched = await other.query('update api_keys set last_used_at = now() where id = $1', [key.id])
      await other.query('commit')
      expect(touched.rowCount).toBe(1)

      const removed = await removal
      expect(removed.status, removed.text).toBe(200)
      expect(removed.body).toMatchObject({ id: member.id })
      const left = await other.query('select (select count(*) from users where id = $1)::int as users', [
        member.id,
      ])
      expect(left.rows[0].users).toBe(0)
    })
  },
)
