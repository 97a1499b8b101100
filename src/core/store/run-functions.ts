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
  if p_store_state then
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
  return query
    update run_steps set status = e.status, output = e.output, summary = e.summary, error = e.error,
      attempts = coalesce(e.attempts, run_steps.attempts), finished_at = now()
    from jsonb_to_recordset(p_endings)
      as e(run_id text, seq integer, status text, output jsonb, summary jsonb, error jsonb, attempts jsonb)
    where run_steps.run_id = e.run_id and run_steps.seq = e.seq
    returning run_steps.*;
  return query
    insert into run_steps (run_id, seq, key, kind, tool_id, integration_id, input, status, output, summary, error, attempts, finished_at)
    select s.run_id, s.seq, s.key, s.kind, s.tool_id, s.integration_id, s.input, s.status, s.output, s.summary, s.error, s.attempts,
      case when s.status = 'running' then null else now() end
    from jsonb_to_recordset(p_rows)
      as s(run_id text, seq integer, key text, kind text, tool_id text, integration_id text, input jsonb, status text, output jsonb, summary jsonb, error jsonb, attempts jsonb)
    on conflict (run_id, seq) do update set key = excluded.key, input = excluded.input, status = excluded.status,
      attempts = excluded.attempts, output = excluded.output, summary = excluded.summary, error = excluded.error,
      finished_at = excluded.finished_at
    returning *;
end
$$`

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
    with recursive owners(user_id) as (
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
    update runs set status = 'running', lease_holder = p_holder || '#' || (runs.executions + 1),
      lease_expires_at = now() + p_lease_ms * interval '1 millisecond',
      started_at = coalesce(started_at, now()), executions = executions + 1
    where id in (
      select candidates.id from candidates
      where nth <= p_slots_per_owner - coalesce((p_held ->> candidates.user_id)::int, 0)
      order by turn, coalesce((p_served ->> candidates.user_id)::bigint, 0), candidates.available_at
      limit p_limit)
    returning runs.*;
end
$$`
