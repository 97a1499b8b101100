import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator, sql } from 'kysely'
import { migrationsFor } from '../src/core/store/migrations.ts'
import { Mutex } from '../src/core/store/mutex.ts'
import { PGliteDialect } from '../src/core/store/pglite-dialect.ts'
import { maintainPGlite } from '../src/core/store/pglite-vacuum.ts'
import { ensureRunPartitions } from '../src/core/store/run-partitions.ts'
import { acceptEvents } from '../src/core/triggers/accept.ts'
import type { Schema } from '../src/core/store/schema.ts'

// "An old installation" (issue 22, section 9), on the embedded store: the intake's statement rate
// and the longest maintenance pause (the embedded store's VACUUM and ANALYZE, which hold its one
// thread) with OLD runs kept, against SMALL, measured in one run. The old runs are made with one
// set-based INSERT … SELECT generate_series; each measured phase accepts deliveries in batches of
// BATCH for PHASE_MS while the maintenance runs every second, as in the service, and a worker's
// claim and end are imitated by moving the new runs to running and then succeeded.
// `node --import tsx bench/old-installation.ts` writes its keys into bench/results.json; `npm run bench`
// runs it too. BENCH_OLD_RUNS, BENCH_OLD_SMALL and BENCH_OLD_PHASE_MS scale it down for a quick run.
const SMALL = Number(process.env.BENCH_OLD_SMALL ?? 10_000)
const OLD = Number(process.env.BENCH_OLD_RUNS ?? 1_000_000)
const PHASE_MS = Number(process.env.BENCH_OLD_PHASE_MS ?? 20_000)
const BATCH = 64

async function measure(kept: number): Promise<{ perS: number; longestPauseMs: number; pauses: number }> {
  const pglite = new PGlite({ postgresqlconf: 'shared_buffers = 32MB' })
  await pglite.waitReady
  const mutex = new Mutex()
  const db = new Kysely<Schema>({ dialect: new PGliteDialect(pglite, mutex) })
  try {
    const { error } = await new Migrator({ db, provider: migrationsFor('pglite') }).migrateToLatest()
    if (error) throw error
    await ensureRunPartitions(db)
    await sql`insert into users (id, email, name, plan) values ('u', 'u@example.test', 'u', 'enterprise')`.execute(
      db,
    )
    await sql`insert into agents (id, user_id, name, current_version) values ('agt_u', 'u', 'a', 1)`.execute(
      db,
    )
    await sql`insert into subscriptions (id, user_id, agent_id, trigger_id, integration_id, config, mapping, status)
      values ('sub_u', 'u', 'agt_u', 't', 'int', '{}', '{}', 'active')`.execute(db)
    await sql`
      insert into runs (id, user_id, agent_id, agent_version, started_by, subscription_id, event_id, event, inputs, status, created_at, finished_at)
      select 'run_0' || lpad(to_hex(g), 12, '0'), 'u', 'agt_u', 1, 'trigger', 'sub_u', 'evt_0' || lpad(to_hex(g), 12, '0'),
        '{"card": {"name": "an old card"}}'::jsonb, '{"title": "an old card"}'::jsonb, 'succeeded',
        now() - interval '1 day', now() - interval '1 day'
      from generate_series(1, ${kept}) g`.execute(db)
    // The first VACUUM after building sets the visibility map of every page: a cost of the build, not of running.
    await pglite.exec('VACUUM ANALYZE runs')
    let longestPauseMs = 0
    let pauses = 0
    // A pause is a step's hold of the one thread (pglite-vacuum.ts), not a turn's whole time: between
    // steps the intake's statements go, and their time is the intake's, not the maintenance's.
    const maintenance = setInterval(
      () =>
        void maintainPGlite(pglite, mutex, (ms) => {
          longestPauseMs = Math.max(longestPauseMs, ms)
          pauses++
        }),
      1_000,
    )
    let accepted = 0
    const deadline = Date.now() + PHASE_MS
    try {
      for (let round = 0; Date.now() < deadline; round++) {
        const items = Array.from({ length: BATCH }, (_, i) => ({
          source: 'whk_bench',
          candidate: { dedupeKey: `${kept}-${round}-${i}`, type: 'updateCard', raw: {} },
          matches: [
            {
              subscriptionId: 'sub_u',
              userId: 'u',
              agentId: 'agt_u',
              event: { card: { name: `card ${i}` } },
              inputs: { title: `card ${i}` },
            },
          ],
        }))
        accepted += (await acceptEvents(db, items)).length
        await sql`update runs set status = 'running', lease_holder = 'bench', lease_expires_at = now() + interval '30 seconds'
          where status = 'queued'`.execute(db)
        await sql`update runs set status = 'succeeded', lease_holder = null, lease_expires_at = null, finished_at = now()
          where status = 'running'`.execute(db)
        await new Promise((resolve) => setImmediate(resolve))
      }
    } finally {
      clearInterval(maintenance)
    }
    return { perS: accepted / (PHASE_MS / 1000), longestPauseMs, pauses }
  } finally {
    await db.destroy()
    await pglite.close()
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000

/** The old-installation line's keys, the small store measured first, in one run. */
export async function oldInstallationBench(): Promise<Record<string, number>> {
  const small = await measure(SMALL)
  console.log(`old installation, kept ${SMALL}:`, small)
  const old = await measure(OLD)
  console.log(`old installation, kept ${OLD}:`, old)
  return {
    old_installation_runs_kept: OLD,
    old_installation_baseline_runs_kept: SMALL,
    old_installation_intake_per_s: round(old.perS),
    old_installation_baseline_intake_per_s: round(small.perS),
    old_installation_intake_ratio: round(old.perS / small.perS),
    old_installation_longest_pause_ms: round(old.longestPauseMs),
    old_installation_baseline_longest_pause_ms: round(small.longestPauseMs),
    old_installation_pause_ratio: round(old.longestPauseMs / small.longestPauseMs),
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const keys = await oldInstallationBench()
  console.log(keys)
  const file = path.join(import.meta.dirname, 'results.json')
  fs.writeFileSync(
    file,
    JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), ...keys }, null, 2) + '\n',
  )
}
