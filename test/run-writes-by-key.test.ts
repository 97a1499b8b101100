import { sql, type Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import { newId } from '../src/core/ids.ts'
import type { StoreOptions } from '../src/core/store/database.ts'
import { openRunStore } from './helpers/run-store.ts'
import { scratchDatabase } from './helpers/scratch-database.ts'

// Runs are claimed, and their timeline entries and ends written, by key, however young the tables
// are when the functions that do it are first planned (migration 0024,
// src/core/store/run-functions.ts). 0022's functions joined with runs and run_steps, and a plan made
// while the tables were small read them whole on every call until the table was next analyzed.
// Counted, not timed: the sequential scans of runs and run_steps within one transaction, which is
// one connection, so every call meets the plans the first calls made.
const stores = [
  {
    store: 'pglite',
    options: async () => ({ options: { memory: true } as StoreOptions, drop: async () => {} }),
  },
  ...(process.env.TEST_DATABASE_URL
    ? [
        {
          store: 'postgres',
          options: async () => {
            const scratch = await scratchDatabase(process.env.TEST_DATABASE_URL!)
            return { options: { databaseUrl: scratch.url } as StoreOptions, drop: scratch.drop }
          },
        },
      ]
    : []),
]

const ENTRIES = 12

/**
 * Sequential scans of runs and run_steps counted so far by this connection and not yet reported,
 * which within one transaction only grows. On the embedded store each month is a partition of its
 * own, and all of them count.
 */
const seqScans = async (db: Kysely<any>) => {
  const { rows } = await sql<{ scans: string }>`
    select coalesce(sum(seq_scan), 0) as scans from pg_stat_xact_user_tables
    where relname ~ '^(runs|run_steps)(_|$)'`.execute(db)
  return Number(rows[0]!.scans)
}

describe.each(stores)('run writes by key, on $store', ({ options }) => {
  it('runs claimed, and a run of many entries begun, ended and closed, on young tables never scan runs or run_steps whole', async () => {
    const scratch = await options()
    const runs = await openRunStore(`${newId('usr')}@example.test`, scratch.options)
    try {
      const db = runs.store.db
      const holder = 'worker#1'
      // Queued in the order they are claimed, one a claim; the last is the run the entries are written to.
      const queued: string[] = []
      for (let n = 0; n < ENTRIES; n++)
        queued.push(await runs.run({ available_at: new Date(Date.now() - 60_000 + n * 1000) }))
      const runId = queued.at(-1)!

      const scans = await db.transaction().execute(async (trx) => {
        const before = await seqScans(trx)
        for (const id of queued) {
          const { rows } = await sql<{ id: string; lease_holder: string }>`
            select id, lease_holder from claim_runs('worker', 60000::float8, 1, ${ENTRIES}, '{}'::jsonb, '{}'::jsonb)`.execute(
            trx,
          )
          expect(rows).toEqual([{ id, lease_holder: holder }])
        }
        for (let seq = 0; seq < ENTRIES; seq++) {
          const entry = {
            run_id: runId,
            seq,
            key: `call_${seq}`,
            kind: 'tool_call',
            status: 'running',
            attempts: [],
          }
          const ending = { run_id: runId, seq: seq - 1, status: 'succeeded', output: { n: seq - 1 } }
          const { rows } = await sql<{ seq: number; status: string }>`
            select seq, status from begin_run_steps(${runId}, ${holder}, false, false, null::jsonb,
              ${JSON.stringify([entry])}::jsonb, ${JSON.stringify(seq > 0 ? [ending] : [])}::jsonb)`.execute(
            trx,
          )
          expect(rows.map((r) => [r.seq, r.status])).toEqual([
            ...(seq > 0 ? [[seq - 1, 'succeeded']] : []),
            [seq, 'running'],
          ])
        }
        const { rows: ended } = await sql<{ id: string; holder: string }>`
          select id, holder from end_runs(
            ${JSON.stringify([{ id: runId, holder, status: 'succeeded', result: { done: true } }])}::jsonb,
            ${JSON.stringify([{ run_id: runId, holder, seq: ENTRIES, key: 'answer', kind: 'model_call', status: 'succeeded', output: {} }])}::jsonb,
            ${JSON.stringify([{ run_id: runId, holder, seq: ENTRIES - 1, status: 'succeeded', output: { n: ENTRIES - 1 } }])}::jsonb)`.execute(
          trx,
        )
        expect(ended).toEqual([{ id: runId, holder }])
        // A stalled worker that lost the run writes nothing.
        const { rows: stale } = await sql`
          select id from end_runs(${JSON.stringify([{ id: runId, holder, status: 'failed' }])}::jsonb, '[]', '[]')`.execute(
          trx,
        )
        expect(stale).toEqual([])
        return (await seqScans(trx)) - before
      })

      expect(scans).toBe(0)
      const { rows: steps } = await sql<{ status: string }>`
        select status from run_steps where run_id = ${runId} order by seq`.execute(db)
      expect(steps.map((s) => s.status)).toEqual(Array(ENTRIES + 1).fill('succeeded'))
      const { rows: run } = await sql<{ status: string; lease_holder: string | null }>`
        select status, lease_holder from runs where id = ${runId}`.execute(db)
      expect(run).toEqual([{ status: 'succeeded', lease_holder: null }])
    } finally {
      await runs.store.close()
      await scratch.drop()
    }
  })
})
