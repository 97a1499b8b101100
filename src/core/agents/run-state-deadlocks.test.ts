import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../ids.ts'
import type { Store } from '../store/database.ts'
import { openRunStore, type RunStore } from '../../../test/helpers/run-store.ts'
import { RunState, type Settled } from './run-state.ts'

// "Nothing is lost" (README): a run's end is one statement (end_runs) for every run of its group
// commit, and PostgreSQL may roll it back to break a deadlock, for instance with a user's removal
// (test/removal-deadlock.test.ts). Failed, every run of the batch would lapse and run again; it is
// tried again instead (store/deadlocks.ts). The deadlock is made on purpose, so that the end is the
// transaction that waited first, the one whose check finds the cycle and is rolled back.
describe.skipIf(!process.env.TEST_DATABASE_URL)('a run end chosen to break a deadlock, on PostgreSQL', () => {
  let runs: RunStore
  let store: Store
  let state: RunState
  let other: pg.Client

  beforeAll(async () => {
    runs = await openRunStore(`${newId('usr')}@example.test`, { databaseUrl: process.env.TEST_DATABASE_URL! })
    store = runs.store
    state = new RunState(store.db)
    other = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await other.connect()
  })
  afterAll(async () => {
    await other?.end()
    await store?.close()
  })

  const lease = {
    holder: 'w_deadlock',
    held: () => true,
    stopping: new AbortController().signal,
    offSlot: <T>(wait: () => Promise<T>) => wait(),
  }
  const skipped: Settled = {
    step: { seq: 0, key: 's0', kind: 'step', toolId: 'trello.get_card' },
    end: { status: 'skipped' },
  }

  it('is tried again, and the run ends once', async () => {
    const runId = await runs.run({ status: 'running', lease_holder: lease.holder })
    await store.db
      .insertInto('run_steps')
      .values({
        run_id: runId,
        seq: 0,
        key: 's0',
        kind: 'step',
        tool_id: 'trello.get_card',
        status: 'running',
        attempts: '[]',
      })
      .execute()
    // Another transaction holds the entry the end will write.
    await other.query('begin')
    await other.query('select 1 from run_steps where run_id = $1 and seq = 0 for update', [runId])

    const ended = state.finish(runId, lease, 'succeeded', { result: { ok: true } }, [skipped])
    // end_runs has taken the run's row and now waits for the entry.
    await until(async () => {
      const { rows } = await other.query(
        `select 1 from pg_locks where not granted and pid <> pg_backend_pid()
         and pid in (select pid from pg_stat_activity where datname = current_database())`,
      )
      return rows.length > 0
    })
    // The other transaction now wants the run's row: each waits on the other. It goes on only once
    // the end was rolled back.
    const touched = await other.query('update runs set available_at = available_at where id = $1', [runId])
    await other.query('commit')
    expect(touched.rowCount).toBe(1)

    expect(await ended).toBe(true)
    const row = await store.db
      .selectFrom('runs')
      .select(['status', 'lease_holder', 'result'])
      .where('id', '=', runId)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ status: 'succeeded', lease_holder: null, result: { ok: true } })
    const entries = await store.db
      .selectFrom('run_steps')
      .select(['seq', 'status'])
      .where('run_id', '=', runId)
      .execute()
    expect(entries).toEqual([{ seq: 0, status: 'skipped' }])
  })
})

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the end to wait on the entry')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
