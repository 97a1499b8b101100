import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../ids.ts'
import type { Store } from '../store/database.ts'
import { untilABackendWaitsForALock } from '../../../test/helpers/lock-wait.ts'
import { openRunStore, type RunStore } from '../../../test/helpers/run-store.ts'
import { RunState, type Settled } from './run-state.ts'

// "Nothing is lost" (README): a run's end is one statement (end_runs) for every run of its group
// commit, and so are its entries' begins (begin_runs_steps_stamped); PostgreSQL may roll either
// back to break a deadlock, for instance with a user's removal (test/removal-deadlock.test.ts).
// Failed, every run of the batch would lapse and run again; the statement is tried again instead
// (store/deadlocks.ts). Each deadlock is made on purpose, so that the run's write is the
// transaction that waited first, the one whose check finds the cycle and is rolled back: the write
// has taken the run's row and waits for an entry another transaction holds, which then wants the
// run's row.
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'run writes chosen to break a deadlock, on PostgreSQL',
  () => {
    let runs: RunStore
    let store: Store
    let state: RunState
    let other: pg.Client

    beforeAll(async () => {
      runs = await openRunStore(`${newId('usr')}@example.test`, {
        databaseUrl: process.env.TEST_DATABASE_URL!,
      })
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

    /** A running run with entry 0 running, and `other` in a transaction holding that entry. */
    async function runWithItsEntryHeld(): Promise<string> {
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
      await other.query('begin')
      await other.query('select 1 from run_steps where run_id = $1 and seq = 0 for update', [runId])
      return runId
    }

    /** Once the run's write waits for the entry, `other` wants the run's row, then commits. */
    async function closeTheCycle(runId: string, write: string): Promise<void> {
      await untilABackendWaitsForALock(other, write)
      // It goes on only once the run's write was rolled back.
      const touched = await other.query('update runs set available_at = available_at where id = $1', [runId])
      await other.query('commit')
      expect(touched.rowCount).toBe(1)
    }

    it('an end is tried again, and the run ends once', async () => {
      const runId = await runWithItsEntryHeld()
      const ended = state.finish(runId, lease, 'succeeded', { result: { ok: true } }, [skipped])
      await closeTheCycle(runId, 'the end')

      expect(await ended).toBe(true)
      const row = await store.db
        .selectFrom('runs')
        .select(['status', 'lease_holder', 'result'])
        .where('id', '=', runId)
        .executeTakeFirstOrThrow()
      expect(row).toMatchObject({ status: 'succeeded', lease_holder: null, result: { ok: true } })
      expect(await runs.entries(runId)).toEqual([{ seq: 0, status: 'skipped' }])
    })

    it('a begin is tried again: the held-back end and the next entry are written once, and the claim keeps the run', async () => {
      const runId = await runWithItsEntryHeld()
      // A model run's next entry carries the end of the one before it (claimed-timeline.ts).
      const begun = state.begin(
        runId,
        lease,
        { seq: 1, key: 's1', kind: 'step', toolId: 'trello.get_card' },
        [],
        [],
        {
          endings: [{ seq: 0, end: { status: 'succeeded', output: { ok: true } } }],
        },
      )
      await closeTheCycle(runId, 'the begin')

      const stamps = await begun
      expect(stamps?.map((s) => s.seq)).toEqual([0, 1])
      expect(await runs.entries(runId)).toEqual([
        { seq: 0, status: 'succeeded' },
        { seq: 1, status: 'running' },
      ])
      const row = await store.db
        .selectFrom('runs')
        .select(['status', 'lease_holder'])
        .where('id', '=', runId)
        .executeTakeFirstOrThrow()
      expect(row).toEqual({ status: 'running', lease_holder: lease.holder })
    })
  },
)
