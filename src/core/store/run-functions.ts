// What migrations 0021 and 0022 made on `runs` and 0023 makes again over the tables partitioned by
// month (runs-by-month.ts): a function's row type is the table it was created with, not the name,
// and a table's triggers go with it, so the new parent needs its own. The text is the same for both.

/**
 * The queue's counts per owner (0021, count_queued_runs), kept by each statement on runs: one
 * trigger per kind of write, each seeing the statement's rows at once.
 */
export const QUEUED_COUNT_TRIGGERS = [
  `create trigger runs_queued_inserted after insert on runs referencing new table as new_runs
  for each statement execute function count_queued_runs()`,
  `create trigger runs_queued_updated after update on runs referencing old table as old_runs new table as new_runs
  for each statement execute function count_queued_runs()`,
  `create trigger runs_queued_deleted after delete on runs referencing old table as old_runs
  for each statement execute function count_queued_runs()`,
]

/** The parts of begin_run_steps (below) that 0024's keeps: its fence and its new entries. */
const BEGIN_FENCE = `  if p_store_state then
    update runs set model_state = p_model_state
    where id = p_run_id and lease_holder = p_holder and status = 'running'
      and not (p_unless_cancelled and cancel_requested);
  else
    perform from runs
    where id = p_run_id and lease_holder = p_holder and status = 'running'
      and not (p_unless_cancelled and cancel_requested)
    for share;
  end if;
  if not found then
    return;
  end if;
`
const BEGIN_NEW_ENTRIES = `  return query
    insert into run_steps (run_id, seq, key, kind, tool_id, integration_id, input, status, output, summary, error, attempts, finished_at)
    select s.run_id, s.seq, s.key, s.kind, s.tool_id, s.integration_id, s.input, s.status, s.output, s.summary, s.error, s.attempts,
      case when s.status = 'running' then null else now() end
    from jsonb_to_recordset(p_rows)
      as s(run_id text, seq integer, key text, kind text, tool_id text, integration_id text, input jsonb, status text, output jsonb, summary jsonb, error jsonb, attempts jsonb)
    on conflict (run_id, seq) do update set key = excluded.key, input = excluded.input, status = excluded.status,
      attempts = excluded.attempts, output = excluded.output, summary = excluded.summary, error = excluded.error,
      finished_at = excluded.finished_at
    returning *;
`

/**
 * begin_run_steps: the run's fence (a share lock on the run while it is held by this very claim; or,
 * with a model state to store, the update that stores it under the same conditions), then earlier
 * entries' held-back ends and the new entry, both or neither. The rows written come back.
 */
export const BEGIN_RUN_STEPS = `
create function begin_run_steps(p_run_id text, p_holder text, p_unless_cancelled boolean,
  p_store_state boolean, p_model_state jsonb, p_rows jsonb, p_endings jsonb)
returns setof run_steps language plpgsql as $$
begin
${BEGIN_FENCE}  return query
    update run_steps set status = e.status, output = e.output, summary = e.summary, error = e.error,
      attempts = coalesce(e.attempts, run_steps.attempts), finished_at = now()
    from jsonb_to_recordset(p_endings)
      as e(run_id text, seq integer, status text, output jsonb, summary jsonb, error jsonb, attempts jsonb)
    where run_steps.run_id = e.run_id and run_steps.seq = e.seq
    returning run_steps.*;
${BEGIN_NEW_ENTRIES}end
$$`

/** claim_runs's choice: each owner's runs waiting, in their turns (agents/worker.ts, RunWorker.claim). */
const CLAIM_CANDIDATES = `    with recursive owners(user_id) as (
      (select user_id from runs where status = 'queued' order by user_id limit 1)
      union all
      select (select r.user_id from runs r where r.status = 'queued' and r.user_id > o.user_id order by r.user_id limit 1)
      from owners o where o.user_id is not null
    ), candidates as (
      select c.id, c.available_at, o.user_id,
        row_number() over (partition by o.user_id order by c.available_at) as nth,
        (select count(*) from runs h where h.user_id = o.user_id and h.status = 'running' and h.lease_holder is not null)
          + row_number() over (partition by o.user_id order by c.available_at) as turn
      from owners o cross join lateral (
        select q.id, q.available_at from runs q
        where q.status = 'queued' and q.user_id = o.user_id and q.available_at <= now()
        order by q.available_at
        limit p_limit
        for update skip locked) c
      where o.user_id is not null
    )
`
const CLAIMED = `status = 'running', lease_holder = p_holder || '#' || (runs.executions + 1),
      lease_expires_at = now() + p_lease_ms * interval '1 millisecond',
      started_at = coalesce(started_at, now()), executions = executions + 1`
const CLAIM_CHOSEN = `select candidates.id from candidates
      where nth <= p_slots_per_owner - coalesce((p_held ->> candidates.user_id)::int, 0)
      order by turn, coalesce((p_served ->> candidates.user_id)::bigint, 0), candidates.available_at
      limit p_limit`

/**
 * claim_runs: the worker's claim (agents/worker.ts, RunWorker.claim), which every run meets at least
 * once and an idle worker makes whenever it is woken.
 */
export const CLAIM_RUNS = `
create function claim_runs(p_holder text, p_lease_ms double precision, p_limit integer,
  p_slots_per_owner integer, p_held jsonb, p_served jsonb)
returns setof runs language plpgsql as $$
begin
  return query
${CLAIM_CANDIDATES}    update runs set ${CLAIMED}
    where id in (
      ${CLAIM_CHOSEN})
    returning runs.*;
end
$$`

/**
 * Migration 0024's claim_runs, begin_run_steps and end_runs: each row they write is found by its
 * key, one statement per row. 0022's joined their chosen runs, or their JSON (jsonb_to_recordset,
 * which the planner takes for 100 rows), with runs or run_steps, and how to join was the planner's
 * guess from the tables' statistics. The plan a connection keeps for a function, made while the
 * tables were young, read run_steps whole for every timeline entry and runs whole for every claim
 * until the table was next analyzed: on PostgreSQL an entry's end took 0.75 ms after 5,000 entries,
 * against 0.06 ms for the insert beside it (docs/benchmarks.md, "Model agents"). A lookup of one key
 * is planned as an index scan on a young table as on an old one (test/run-writes-by-key.test.ts).
 */
export const BEGIN_RUN_STEPS_BY_KEY = `
create or replace function begin_run_steps(p_run_id text, p_holder text, p_unless_cancelled boolean,
  p_store_state boolean, p_model_state jsonb, p_rows jsonb, p_endings jsonb)
returns setof run_steps language plpgsql as $$
declare
  e record;
begin
${BEGIN_FENCE}  for e in select * from jsonb_to_recordset(p_endings)
      as x(run_id text, seq integer, status text, output jsonb, summary jsonb, error jsonb, attempts jsonb) loop
    return query
      update run_steps set status = e.status, output = e.output, summary = e.summary, error = e.error,
        attempts = coalesce(e.attempts, run_steps.attempts), finished_at = now()
      where run_steps.run_id = e.run_id and run_steps.seq = e.seq
      returning run_steps.*;
  end loop;
${BEGIN_NEW_ENTRIES}end
$$`

/**
 * end_runs: the ends of runs that end at the same moment (one group commit), each only while its
 * claim still holds the run, with the entries each end carries; the runs it ended come back.
 */
export const END_RUNS_BY_KEY = `
create or replace function end_runs(p_ends jsonb, p_settled jsonb, p_endings jsonb)
returns table (id text, holder text) language plpgsql as $$
#variable_conflict use_column
declare
  r record;
  e record;
begin
  for r in select * from jsonb_to_recordset(p_ends)
      as x(id text, holder text, status text, result jsonb, error jsonb, model_state jsonb) loop
    update runs set status = r.status, result = r.result, error = r.error, finished_at = now(),
      model_state = coalesce(r.model_state, runs.model_state),
      lease_holder = null, lease_expires_at = null, token_hash = null, token_sealed = null
    where runs.id = r.id and runs.lease_holder = r.holder and runs.status = 'running';
    -- Only the entries of the worker that still held the run: a stalled one that lost it writes nothing.
    continue when not found;
    insert into run_steps (run_id, seq, key, kind, tool_id, integration_id, input, status, output, summary, error, attempts, finished_at)
    select s.run_id, s.seq, s.key, s.kind, s.tool_id, s.integration_id, s.input, s.status, s.output, s.summary, s.error, '[]'::jsonb, now()
    from jsonb_to_recordset(p_settled)
      as s(run_id text, holder text, seq integer, key text, kind text, tool_id text, integration_id text, input jsonb, status text, output jsonb, summary jsonb, error jsonb)
    where s.run_id = r.id and s.holder = r.holder
    on conflict (run_id, seq) do update set key = excluded.key, input = excluded.input, status = excluded.status, output = excluded.output,
      summary = excluded.summary, error = excluded.error, attempts = excluded.attempts, finished_at = excluded.finished_at;
    for e in select * from jsonb_to_recordset(p_endings)
        as x(run_id text, holder text, seq integer, status text, output jsonb, summary jsonb, error jsonb, attempts jsonb)
        where x.run_id = r.id and x.holder = r.holder loop
      update run_steps set status = e.status, output = e.output, summary = e.summary, error = e.error,
        attempts = coalesce(e.attempts, run_steps.attempts), finished_at = now()
      where run_steps.run_id = e.run_id and run_steps.seq = e.seq;
    end loop;
    id := r.id;
    holder := r.holder;
    return next;
  end loop;
end
$$`

/** claim_runs as 0022 made it, each chosen run then taken by its key. */
export const CLAIM_RUNS_BY_KEY = `
create or replace function claim_runs(p_holder text, p_lease_ms double precision, p_limit integer,
  p_slots_per_owner integer, p_held jsonb, p_served jsonb)
returns setof runs language plpgsql as $$
declare
  chosen record;
begin
  for chosen in
${CLAIM_CANDIDATES}    ${CLAIM_CHOSEN}
  loop
    return query
      update runs set ${CLAIMED}
      where runs.id = chosen.id
      returning runs.*;
  end loop;
end
$$`

/** The begins of one group commit, one by one (begin_runs_steps and begin_runs_steps_stamped). */
const EACH_BEGIN = `  for b in select * from jsonb_to_recordset(p_begins)
      as x(run_id text, holder text, unless_cancelled boolean, store_state boolean, model_state jsonb, rows jsonb, endings jsonb) loop
`
const BEGIN_ONE = `begin_run_steps(b.run_id, b.holder, b.unless_cancelled, b.store_state, b.model_state, b.rows, b.endings)`

/**
 * Migration 0025's begin_runs_steps: the begins of many claims at once (agents/run-state.ts, a group
 * commit), each one begin_run_steps as before, in order; the rows each wrote come back, none for a
 * begin that its fence refused. One statement where a busy worker made one per timeline entry: each
 * statement is a round trip, a wake of a database backend and a commit, which cost the database and
 * the service more than the entry's own write (docs/benchmarks.md, "Model agents").
 */
export const BEGIN_RUNS_STEPS = `
create function begin_runs_steps(p_begins jsonb)
returns setof run_steps language plpgsql as $$
declare
  b record;
begin
${EACH_BEGIN}    return query
      select * from ${BEGIN_ONE};
  end loop;
end
$$`

/**
 * Migration 0026's begin_runs_steps_stamped: begin_runs_steps, answering only each written entry's
 * place and the database's time stamps. The service sent every other column itself and keeps the
 * entries it wrote (claimed-timeline.ts); sending them back, model answers and tool outputs as jsonb
 * turned to text and parsed again, cost the database and the service a share of every begin
 * (docs/benchmarks.md, "Model agents"). A new name rather than a new answer for the old one, so an
 * instance not yet upgraded keeps calling the function it knows.
 */
export const BEGIN_RUNS_STEPS_STAMPED = `
create function begin_runs_steps_stamped(p_begins jsonb)
returns table (run_id text, seq integer, started_at timestamptz, finished_at timestamptz)
language plpgsql as $$
#variable_conflict use_column
declare
  b record;
begin
${EACH_BEGIN}    return query
      select s.run_id, s.seq, s.started_at, s.finished_at from ${BEGIN_ONE} s;
  end loop;
end
$$`
