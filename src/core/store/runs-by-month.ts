import { sql, type Kysely, type Migration } from 'kysely'
import { idPrefixAt } from '../ids.ts'
import { BEGIN_RUN_STEPS, CLAIM_RUNS, QUEUED_COUNT_TRIGGERS } from './run-functions.ts'

/**
 * Migration 0023, on the embedded store only (migrations.ts, migrationsFor, says why not on
 * PostgreSQL): `runs` and `run_steps` partitioned by id range, a month a partition (ids begin with
 * the time they were made, core/ids.ts), so maintenance works on the newest month only.
 *
 * Why (docs/benchmarks.md, "An old installation"): a run's claim and end each write its row anew and
 * leave a dead entry in every index of `runs`, and a VACUUM that clears those reads each index whole.
 * In one table that is every run ever kept, 45–50 ms at 1,000,000 runs on the embedded store's one
 * thread; in a month's partition it is that month's runs, whatever the installation's age. A lookup
 * by id goes to its one partition; the queue's scans read each partition's partial indexes, which
 * are empty in every month whose runs have all ended.
 *
 * The tables as they were become the partitions below the moment of the migration (`runs_before`,
 * `run_steps_before`), so no row is copied; their indexes and foreign keys are taken over by the new
 * parents. Two indexes cannot stay unique, because a unique index of a partitioned table must hold
 * its partition key: one run per event is kept by `events_once_per_source` (a run is only made for
 * an event just inserted, core/triggers/accept.ts), and a run token is 128 random bits. Rebuilding
 * those two is the migration's one cost that grows with the runs kept. The months themselves are
 * made ahead by run-partitions.ts; ids no month covers go to a default partition.
 */
export const runsByMonth: Migration = {
  async up(db: Kysely<any>) {
    await sql`alter table run_steps rename to run_steps_before`.execute(db)
    await sql`alter table runs rename to runs_before`.execute(db)
    // The parents' indexes take the names the tables' own had.
    await sql`
      do $$ declare ix record; begin
        for ix in select i.relname from pg_index x join pg_class i on i.oid = x.indexrelid
          where x.indrelid in ('runs_before'::regclass, 'run_steps_before'::regclass) loop
          execute format('alter index %I rename to %I', ix.relname,
            regexp_replace(ix.relname, '^(runs|run_steps)_', '\\1_before_'));
        end loop;
      end $$`.execute(db)
    await sql`drop index runs_before_once_per_event`.execute(db)
    await sql`drop index runs_before_by_token`.execute(db)
    await sql`alter table run_steps_before drop constraint run_steps_run_id_fkey`.execute(db)
    await sql`alter table approvals drop constraint approvals_run_id_fkey`.execute(db)
    for (const op of ['inserted', 'updated', 'deleted'])
      await sql.raw(`drop trigger runs_queued_${op} on runs_before`).execute(db)
    await sql`drop function claim_runs`.execute(db)
    await sql`drop function begin_run_steps`.execute(db)

    await sql`create table runs (like runs_before including defaults including constraints) partition by range (id)`.execute(
      db,
    )
    await sql`alter table runs add primary key (id)`.execute(db)
    await sql`alter table runs add constraint runs_user_id_fkey foreign key (user_id) references users (id) on delete cascade`.execute(
      db,
    )
    await sql`alter table runs add constraint runs_agent_id_fkey foreign key (agent_id) references agents (id) on delete cascade`.execute(
      db,
    )
    await sql`create index runs_once_per_event on runs (subscription_id, event_id) where event_id is not null and not test`.execute(
      db,
    )
    await sql`create index runs_by_token on runs (token_hash) where token_hash is not null`.execute(db)
    await sql`create index runs_by_user_time on runs (user_id, created_at)`.execute(db)
    await sql`create index runs_ready on runs (available_at) where status = 'queued'`.execute(db)
    await sql`create index runs_leased on runs (lease_expires_at) where status = 'running'`.execute(db)
    await sql`create index runs_queued_by_owner on runs (user_id, available_at) where status = 'queued'`.execute(
      db,
    )
    await sql`create index runs_running_by_owner on runs (user_id) where status = 'running'`.execute(db)
    await sql`create index runs_waiting on runs (available_at) where status = 'waiting_for_approval'`.execute(
      db,
    )
    await sql`create table run_steps (like run_steps_before including defaults including constraints) partition by range (run_id)`.execute(
      db,
    )
    await sql`alter table run_steps add constraint run_steps_pk primary key (run_id, seq)`.execute(db)

    // Below the moment of the migration, or above every run kept if a clock ran ahead: any character
    // appended makes a bound above the id it extends.
    const now = idPrefixAt('run', new Date())
    const { rows } = await sql<{ last: string | null }>`select max(id) as last from runs_before`.execute(db)
    const last = rows[0]?.last
    const before = last && last >= now ? `${last}~` : now
    await sql`alter table runs attach partition runs_before for values from (minvalue) to (${sql.lit(before)})`.execute(
      db,
    )
    await sql`alter table run_steps attach partition run_steps_before for values from (minvalue) to (${sql.lit(before)})`.execute(
      db,
    )
    await sql`create table runs_default partition of runs default`.execute(db)
    await sql`create table run_steps_default partition of run_steps default`.execute(db)
    // Made once the runs kept are in place, so checking them finds every timeline's and approval's run.
    await sql`alter table run_steps add foreign key (run_id) references runs (id) on delete cascade`.execute(
      db,
    )
    await sql`alter table approvals add foreign key (run_id) references runs (id) on delete cascade`.execute(
      db,
    )

    // The queue's counts (0021), now kept by the parent's statements, whichever partitions they write.
    for (const trigger of QUEUED_COUNT_TRIGGERS) await sql.raw(trigger).execute(db)
    await sql.raw(BEGIN_RUN_STEPS).execute(db)
    await sql.raw(CLAIM_RUNS).execute(db)
    // The functions that write runs keep one plan for all partitions (pruned as they run), where
    // PL/pgSQL would otherwise often plan each call for its values: over 29 partitions (two years of
    // months) a claim took 18 ms so and 1.7 ms with the one plan, a timeline entry's start 2.9 ms
    // against 1.1 ms (one table: 1.1 and 0.9 ms), and the intake's accept_events, planned for each
    // batch, halved the trigger intake (docs/benchmarks.md, "An old installation").
    for (const fn of ['claim_runs', 'begin_run_steps', 'end_runs', 'accept_events'])
      await sql.raw(`alter function ${fn} set plan_cache_mode = force_generic_plan`).execute(db)
  },
}
