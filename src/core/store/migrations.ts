import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely'
import {
  BEGIN_RUN_STEPS,
  BEGIN_RUN_STEPS_BY_KEY,
  BEGIN_RUNS_STEPS,
  BEGIN_RUNS_STEPS_STAMPED,
  CLAIM_RUNS,
  CLAIM_RUNS_BY_KEY,
  END_RUNS_BY_KEY,
  QUEUED_COUNT_TRIGGERS,
} from './run-functions.ts'
import { runsByMonth } from './runs-by-month.ts'

// One set of migrations for PGlite and PostgreSQL: plain PostgreSQL DDL only. One of them, 0023, is
// the embedded store's alone (migrationsFor below).
const migrations: Record<string, Migration> = {
  '0001_access_and_integrations': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('plan', 'text', (c) => c.notNull().check(sql`plan in ('free','pro','enterprise')`))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute()
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull().unique())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('last_used_at', 'timestamptz')
        .execute()
      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('integrations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('external_id', 'text', (c) => c.notNull())
        .addColumn('account_name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('fields', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn('credentials', 'text')
        .addColumn('expires_at', 'timestamptz')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addUniqueConstraint('integrations_one_per_account', ['user_id', 'platform', 'external_id'])
        .execute()
      await db.schema
        .createIndex('integrations_by_user')
        .on('integrations')
        .columns(['user_id', 'platform'])
        .execute()
      await db.schema
        .createTable('connect_sessions')
        .addColumn('state_hash', 'text', (c) => c.primaryKey())
        .addColumn('start_hash', 'text', (c) => c.notNull().unique())
        .addColumn('binding_hash', 'text')
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('integration_id', 'text')
        .addColumn('fields', 'jsonb', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('redirect_uri', 'text', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute()
    },
  },
  '0002_rate_budget': {
    async up(db: Kysely<any>) {
      // The shared request log of every rate budget (see core/limits/budget-postgres.ts).
      await db.schema
        .createTable('rate_events')
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('rate_events_by_key_time')
        .on('rate_events')
        .columns(['key', 'at_ms'])
        .execute()
      await db.schema
        .createTable('rate_blocks')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('until_ms', 'bigint', (c) => c.notNull())
        .execute()
    },
  },
  '0003_connected_with': {
    async up(db: Kysely<any>) {
      // How the credential was obtained, so a reconnect can offer the same way again.
      await db.schema
        .alterTable('integrations')
        .addColumn('connected_with', 'text', (c) => c.notNull().defaultTo('authorization'))
        .execute()
    },
  },
  '0004_user_roles': {
    async up(db: Kysely<any>) {
      // Admins manage users (docs/security.md). An upgraded database makes its oldest user the admin,
      // as a fresh one makes its first user one: there is always someone who can manage the others.
      await db.schema
        .alterTable('users')
        .addColumn('role', 'text', (c) =>
          c
            .notNull()
            .defaultTo('member')
            .check(sql`role in ('admin','member')`),
        )
        .execute()
      await sql`update users set role = 'admin' where id = (select id from users order by created_at, id limit 1)`.execute(
        db,
      )
    },
  },
  '0005_leases': {
    async up(db: Kysely<any>) {
      // Locks that hold no connection while held: the token refresh lock (docs/scaling.md).
      await db.schema
        .createTable('leases')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute()
    },
  },
  '0006_agents_runs_triggers': {
    async up(db: Kysely<any>) {
      // Agents and their versions (docs/agents.md): a run keeps the version current when its event was accepted.
      await db.schema
        .createTable('agents')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('current_version', 'integer', (c) => c.notNull())
        .addColumn('signing_secret', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addUniqueConstraint('agents_one_name_per_user', ['user_id', 'name'])
        .execute()
      await db.schema
        .createTable('agent_versions')
        .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('definition', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('agent_versions_pk', ['agent_id', 'version'])
        .execute()
      // A platform-side webhook: shared by the subscriptions watching one model of one integration
      // when Switchyard manages it, or one per subscription when the user pastes the address.
      await db.schema
        .createTable('webhooks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('integration_id', 'text', (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull())
        .addColumn('model_key', 'text', (c) => c.notNull())
        .addColumn('managed', 'boolean', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('remote_id', 'text')
        .addColumn('secret', 'text')
        .addColumn('status', 'text', (c) =>
          c.notNull().check(sql`status in ('pending','active','removing','remove_failed')`),
        )
        .addColumn('last_error', 'text')
        .addColumn('cleanup_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('cleanup_at', 'timestamptz')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute()
      await sql`create unique index webhooks_one_per_model on webhooks (integration_id, model_key) where managed and status in ('pending','active')`.execute(
        db,
      )
      await db.schema
        .createTable('subscriptions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('trigger_id', 'text', (c) => c.notNull())
        .addColumn('integration_id', 'text', (c) => c.notNull())
        .addColumn('config', 'jsonb', (c) => c.notNull())
        .addColumn('mapping', 'jsonb', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('inactive','active')`))
        .addColumn('start_on_own_changes', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('poll_cursor', 'jsonb')
        .addColumn('next_poll_at', 'timestamptz')
        .addColumn('last_event_at', 'timestamptz')
        .addColumn('last_error', 'text')
        .addColumn('last_error_at', 'timestamptz')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute()
      await db.schema
        .createIndex('subscriptions_polled_due')
        .on('subscriptions')
        .columns(['status', 'next_poll_at'])
        .execute()
      await db.schema
        .createTable('subscription_webhooks')
        .addColumn('subscription_id', 'text', (c) =>
          c.notNull().references('subscriptions.id').onDelete('cascade'),
        )
        .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id'))
        .addPrimaryKeyConstraint('subscription_webhooks_pk', ['subscription_id', 'webhook_id'])
        .execute()
      await db.schema
        .createIndex('subscription_webhooks_by_hook')
        .on('subscription_webhooks')
        .column('webhook_id')
        .execute()
      // Every accepted event, deduplicated on the platform's own id within its source (a webhook or a poll).
      await db.schema
        .createTable('events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('dedupe_key', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addUniqueConstraint('events_once_per_source', ['source', 'dedupe_key'])
        .execute()
      // A run is also its own queue entry: status, available_at and the lease say who may work on it.
      await db.schema
        .createTable('runs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('agent_version', 'integer', (c) => c.notNull())
        .addColumn('started_by', 'text', (c) => c.notNull())
        .addColumn('subscription_id', 'text')
        .addColumn('event_id', 'text')
        .addColumn('event', 'jsonb')
        .addColumn('rerun_of', 'text')
        .addColumn('test', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('inputs', 'jsonb', (c) => c.notNull())
        .addColumn('status', 'text', (c) =>
          c.notNull().check(sql`status in ('queued','running','succeeded','failed','cancelled')`),
        )
        .addColumn('result', 'jsonb')
        .addColumn('error', 'jsonb')
        .addColumn('token_hash', 'text')
        .addColumn('token_sealed', 'text')
        .addColumn('executions', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('available_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('lease_holder', 'text')
        .addColumn('lease_expires_at', 'timestamptz')
        .addColumn('cancel_requested', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('started_at', 'timestamptz')
        .addColumn('finished_at', 'timestamptz')
        .execute()
      await sql`create unique index runs_once_per_event on runs (subscription_id, event_id) where event_id is not null and not test`.execute(
        db,
      )
      await sql`create index runs_ready on runs (available_at) where status = 'queued'`.execute(db)
      await sql`create index runs_leased on runs (lease_expires_at) where status = 'running'`.execute(db)
      await db.schema.createIndex('runs_by_user_time').on('runs').columns(['user_id', 'created_at']).execute()
      await sql`create unique index runs_by_token on runs (token_hash) where token_hash is not null`.execute(
        db,
      )
      // The timeline: a step's result is stored when it completes, so a resumed run skips it.
      await db.schema
        .createTable('run_steps')
        .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('step','tool_call','delivery')`))
        .addColumn('tool_id', 'text')
        .addColumn('integration_id', 'text')
        .addColumn('input', 'jsonb')
        .addColumn('output', 'jsonb')
        .addColumn('summary', 'jsonb')
        .addColumn('error', 'jsonb')
        .addColumn('status', 'text', (c) =>
          c.notNull().check(sql`status in ('running','succeeded','failed','skipped')`),
        )
        .addColumn('attempts', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
        .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('finished_at', 'timestamptz')
        .addPrimaryKeyConstraint('run_steps_pk', ['run_id', 'seq'])
        .execute()
    },
  },
  '0007_accept_events_function': {
    async up(db: Kysely<any>) {
      // The intake's one statement (core/triggers/accept.ts, which says what it does) as a function:
      // PL/pgSQL keeps each connection's plan of its query, where the statement sent alone was parsed
      // and planned again for every batch of deliveries, about a sixth of the database's time per
      // delivery (docs/benchmarks.md). Changing it takes a new migration that replaces it.
      await sql`
        create function accept_events(new_events jsonb, new_runs jsonb) returns table (kind text, id text)
        language plpgsql as $$
        #variable_conflict use_column
        begin
          return query
          with fresh as (
            insert into events (id, source, dedupe_key, type)
            select e.id, e.source, e.dedupe_key, e.type
            from jsonb_to_recordset(new_events) as e(id text, source text, dedupe_key text, type text)
            on conflict (source, dedupe_key) do nothing
            returning events.id
          ), started as (
            insert into runs (id, user_id, agent_id, agent_version, started_by, subscription_id, event_id, event, inputs, status, error, finished_at)
            select r.id, r.user_id, r.agent_id, a.current_version, 'trigger', r.subscription_id, r.event_id, r.event, r.inputs,
              case when r.error is null then 'queued' else 'failed' end, r.error, case when r.error is null then null else now() end
            from jsonb_to_recordset(new_runs)
              as r(id text, event_id text, user_id text, agent_id text, subscription_id text, event jsonb, inputs jsonb, error jsonb)
            join fresh on fresh.id = r.event_id
            join agents a on a.id = r.agent_id
            returning runs.id, runs.subscription_id
          ), touched as (
            -- At most once a second: concurrent batches for one subscription would otherwise queue on its row.
            update subscriptions set last_event_at = now()
            where subscriptions.id in (select subscription_id from started)
              and (last_event_at is null or last_event_at < now() - interval '1 second')
          )
          select 'event'::text, fresh.id from fresh
          union all
          select 'run'::text, started.id from started;
        end
        $$`.execute(db)
    },
  },
  '0008_lifecycle': {
    async up(db: Kysely<any>) {
      // Lifecycle (docs/triggers.md, "When an integration, a plan or a user goes"): a subscription the
      // service stopped (its integration disconnected, its plan lowered) is `paused` with the reason,
      // apart from one a person deactivated.
      await sql`alter table subscriptions drop constraint subscriptions_status_check`.execute(db)
      await sql`alter table subscriptions add constraint subscriptions_status_check check (status in ('inactive','active','paused'))`.execute(
        db,
      )
      await db.schema.alterTable('subscriptions').addColumn('paused_reason', 'text').execute()
      // A webhook's links go with it: removing a user or an integration deletes webhooks whose links
      // would otherwise block the statement (issue 22 saw a 500 there).
      await sql`alter table subscription_webhooks drop constraint subscription_webhooks_webhook_id_fkey`.execute(
        db,
      )
      await sql`alter table subscription_webhooks add constraint subscription_webhooks_webhook_id_fkey foreign key (webhook_id) references webhooks (id) on delete cascade`.execute(
        db,
      )
      // The addresses of webhooks removed on purpose: the intake answers them 410 so the platform stops
      // sending, where an address it never knew stays 404 (docs/triggers.md, "Addresses").
      await db.schema
        .createTable('retired_hooks')
        .addColumn('token', 'text', (c) => c.primaryKey())
        .addColumn('retired_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute()
    },
  },
  '0009_trigger_deliveries': {
    async up(db: Kysely<any>) {
      // Each recent delivery to a webhook (and each poll) with what became of it, per subscription
      // (core/triggers/delivery-log.ts): a ring of the last few per source, written in batches off
      // the intake's path, so troubleshooting can see refusals, duplicates and unmatched events.
      await db.schema
        .createTable('trigger_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('received_at', 'timestamptz', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('event_type', 'text')
        .addColumn('event_key', 'text')
        .addColumn('subscriptions', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
        .execute()
      await db.schema
        .createIndex('trigger_deliveries_by_source')
        .on('trigger_deliveries')
        .columns(['source', 'id'])
        .execute()
    },
  },
  '0011_fair_fenced_queue': {
    async up(db: Kysely<any>) {
      // Executions that ended because their process stopped renewing the lease (a crash, a kill -9,
      // a stall): a run that keeps taking its process down is failed after a few (agents/worker.ts).
      await sql`alter table runs add column lapses integer not null default 0`.execute(db)
      // The fair claim walks the owners with queued runs, then each owner's oldest ready ones, and
      // counts each owner's running ones (agents/worker.ts): each step reads one of these indexes.
      await sql`create index runs_queued_by_owner on runs (user_id, available_at) where status = 'queued'`.execute(
        db,
      )
      await sql`create index runs_running_by_owner on runs (user_id) where status = 'running'`.execute(db)
      // A poll's claim, new at every claim: the cursor is written only under the claim that read it
      // (triggers/poller.ts), so a slow poll whose claim lapsed cannot move the cursor back.
      await sql`alter table subscriptions add column poll_claim text`.execute(db)
    },
  },
  '0012_costs_at_any_size': {
    async up(db: Kysely<any>) {
      // accept_events (0007) as it was, except that each run reads its agent's current version by the
      // agent's key. Joined to the batch's runs, PostgreSQL hashed the whole agents table once per
      // batch, even with fresh statistics (issue 22, section 7); OFFSET 0 keeps the subquery from being
      // flattened back into that join, so it stays one primary-key probe per run at any size.
      await sql`
        create or replace function accept_events(new_events jsonb, new_runs jsonb) returns table (kind text, id text)
        language plpgsql as $$
        #variable_conflict use_column
        begin
          return query
          with fresh as (
            insert into events (id, source, dedupe_key, type)
            select e.id, e.source, e.dedupe_key, e.type
            from jsonb_to_recordset(new_events) as e(id text, source text, dedupe_key text, type text)
            on conflict (source, dedupe_key) do nothing
            returning events.id
          ), started as (
            insert into runs (id, user_id, agent_id, agent_version, started_by, subscription_id, event_id, event, inputs, status, error, finished_at)
            select r.id, r.user_id, r.agent_id, a.current_version, 'trigger', r.subscription_id, r.event_id, r.event, r.inputs,
              case when r.error is null then 'queued' else 'failed' end, r.error, case when r.error is null then null else now() end
            from jsonb_to_recordset(new_runs)
              as r(id text, event_id text, user_id text, agent_id text, subscription_id text, event jsonb, inputs jsonb, error jsonb)
            join fresh on fresh.id = r.event_id
            cross join lateral (select agents.current_version from agents where agents.id = r.agent_id offset 0) a
            returning runs.id, runs.subscription_id
          ), touched as (
            -- At most once a second: concurrent batches for one subscription would otherwise queue on its row.
            update subscriptions set last_event_at = now()
            where subscriptions.id in (select subscription_id from started)
              and (last_event_at is null or last_event_at < now() - interval '1 second')
          )
          select 'event'::text, fresh.id from fresh
          union all
          select 'run'::text, started.id from started;
        end
        $$`.execute(db)
      // The webhook-removal retry picks the webhooks due for cleanup; without an index it read every
      // webhook each second (issue 22, section 7). Only webhooks being removed are in it.
      // An integration named by its account name (a step, a poll) is found by that name, not by
      // reading all of the user's integrations on the platform.
      await sql`create index integrations_by_account_name on integrations (user_id, platform, account_name)`.execute(
        db,
      )
      await sql`create index webhooks_cleanup_due on webhooks (cleanup_at) where status in ('removing','remove_failed')`.execute(
        db,
      )
    },
  },
  '0013_lists_and_writes_at_any_size': {
    async up(db: Kysely<any>) {
      // Lists are paged on (created_at, id) within one user (core/paging.ts): each page is one range
      // of these indexes, however many rows the user has (issue 22, section 7).
      await sql`create index agents_by_user_time on agents (user_id, created_at, id)`.execute(db)
      await sql`create index integrations_by_user_time on integrations (user_id, created_at, id)`.execute(db)
      await sql`create index subscriptions_by_user_time on subscriptions (user_id, created_at, id)`.execute(
        db,
      )
      // A user's, an agent's or an integration's subscriptions (counting them against the plan when one
      // is created, an agent's Triggers tab, deleting an agent, disconnecting an integration) read all
      // subscriptions without these: writes slowed as the store grew.
      await sql`create index subscriptions_by_agent on subscriptions (agent_id)`.execute(db)
      await sql`create index subscriptions_by_integration on subscriptions (integration_id)`.execute(db)
      // (user_id, platform) is a prefix of integrations_by_account_name (0012): with both, the planner
      // chose the shorter one for a lookup by account name and read the user's whole platform range.
      await sql`drop index integrations_by_user`.execute(db)
      // This replaces accept_events from 0012. Only the last_event_at update changes: "id in (select
      // … from started)" was planned as a join that scanned every subscription once per batch; "= any
      // (array(…))" is computed first and probes the primary key once per subscription of the batch.
      await sql`
        create or replace function accept_events(new_events jsonb, new_runs jsonb) returns table (kind text, id text)
        language plpgsql as $$
        #variable_conflict use_column
        begin
          return query
          with fresh as (
            insert into events (id, source, dedupe_key, type)
            select e.id, e.source, e.dedupe_key, e.type
            from jsonb_to_recordset(new_events) as e(id text, source text, dedupe_key text, type text)
            on conflict (source, dedupe_key) do nothing
            returning events.id
          ), started as (
            insert into runs (id, user_id, agent_id, agent_version, started_by, subscription_id, event_id, event, inputs, status, error, finished_at)
            select r.id, r.user_id, r.agent_id, a.current_version, 'trigger', r.subscription_id, r.event_id, r.event, r.inputs,
              case when r.error is null then 'queued' else 'failed' end, r.error, case when r.error is null then null else now() end
            from jsonb_to_recordset(new_runs)
              as r(id text, event_id text, user_id text, agent_id text, subscription_id text, event jsonb, inputs jsonb, error jsonb)
            join fresh on fresh.id = r.event_id
            cross join lateral (select agents.current_version from agents where agents.id = r.agent_id offset 0) a
            returning runs.id, runs.subscription_id
          ), touched as (
            -- At most once a second: concurrent batches for one subscription would otherwise queue on its row.
            update subscriptions set last_event_at = now()
            where subscriptions.id = any (array(select distinct subscription_id from started where subscription_id is not null))
              and (last_event_at is null or last_event_at < now() - interval '1 second')
          )
          select 'event'::text, fresh.id from fresh
          union all
          select 'run'::text, started.id from started;
        end
        $$`.execute(db)
    },
  },
  '0015_model_agents': {
    async up(db: Kysely<any>) {
      // Model connections (docs/model-agents.md): a provider's protocol, its base URL and a sealed
      // key, the owner's own or shared by an admin with everyone.
      await db.schema
        .createTable('model_connections')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('protocol', 'text', (c) => c.notNull())
        .addColumn('base_url', 'text', (c) => c.notNull())
        .addColumn('api_key', 'text')
        .addColumn('shared', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute()
      await sql`create unique index model_connections_name on model_connections (user_id, name)`.execute(db)
      // A model agent's run waits for a person without a worker, and ends out of budget or escalated
      // as endings of their own, not as failures (issue 23).
      await sql`alter table runs drop constraint runs_status_check`.execute(db)
      await sql`alter table runs add constraint runs_status_check check (status in ('queued','running','succeeded','failed','cancelled','waiting_for_approval','budget_exhausted','escalated'))`.execute(
        db,
      )
      // What a model run adds to its budget when a person extends it, and the tools approved for the
      // rest of the run: both outlive the execution that read them.
      await sql`alter table runs add column model_state jsonb`.execute(db)
      await sql`create index runs_waiting on runs (available_at) where status = 'waiting_for_approval'`.execute(
        db,
      )
      await sql`alter table run_steps drop constraint run_steps_kind_check`.execute(db)
      await sql`alter table run_steps add constraint run_steps_kind_check check (kind in ('step','tool_call','delivery','model_call'))`.execute(
        db,
      )
      // One request per model answer whose tool calls need a person: a decision per call.
      await db.schema
        .createTable('approvals')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('model_seq', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) =>
          c.notNull().check(sql`status in ('pending','decided','expired','cancelled')`),
        )
        .addColumn('calls', 'jsonb', (c) => c.notNull())
        .addColumn('decisions', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
        .addColumn('decided_by', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .addColumn('decided_at', 'timestamptz')
        .execute()
      await sql`create unique index approvals_per_answer on approvals (run_id, model_seq)`.execute(db)
      await sql`create index approvals_pending on approvals (user_id, created_at) where status = 'pending'`.execute(
        db,
      )
    },
  },
  '0016_people': {
    async up(db: Kysely<any>) {
      // Signing in like a person (issue 24, docs/security.md "People"): a password, stored only as its
      // scrypt hash; none until the person sets one through an invitation, a reset link or their account.
      await sql`alter table users add column password_hash text`.execute(db)
      // Sessions get a public id (to list and end one without its secret), and what a person needs to
      // recognise it: how it signed in, from which browser, when it was last used.
      await sql`alter table sessions add column id text`.execute(db)
      await sql`update sessions set id = 'ses_' || md5(id_hash)`.execute(db)
      await sql`alter table sessions alter column id set not null`.execute(db)
      await sql`create unique index sessions_by_id on sessions (id)`.execute(db)
      await sql`create index sessions_by_user on sessions (user_id, created_at)`.execute(db)
      await sql`alter table sessions add column method text not null default 'api_key'`.execute(db)
      await sql`alter table sessions add column user_agent text not null default ''`.execute(db)
      await sql`alter table sessions add column last_seen_at timestamptz not null default now()`.execute(db)
      // One-time links that set a password: an invitation or a reset. Only the token's hash is kept.
      await db.schema
        .createTable('password_links')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('invitation','reset')`))
        .addColumn('created_by', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .addColumn('used_at', 'timestamptz')
        .execute()
      await sql`create index password_links_by_user on password_links (user_id)`.execute(db)
      // Failed sign-ins, per account and per client address, that slow the next answers down.
      await db.schema
        .createTable('sign_in_failures')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('last_failure_at', 'timestamptz', (c) => c.notNull())
        .execute()
      // A single sign-on under way: found by the hash of its state, which the browser also holds in a
      // cookie; the PKCE verifier and nonce live here, never in the browser.
      await db.schema
        .createTable('sso_flows')
        .addColumn('state_hash', 'text', (c) => c.primaryKey())
        .addColumn('code_verifier', 'text', (c) => c.notNull())
        .addColumn('nonce', 'text', (c) => c.notNull())
        .addColumn('next_path', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute()
    },
  },
  '0017_model_admin': {
    async up(db: Kysely<any>) {
      // An admin's prices over the shipped table (docs/model-agents.md, "Budget"): each change adds a
      // version holding the whole set of overrides, so a run that names its version always finds the
      // prices it was counted with, however often they change later.
      await db.schema
        .createTable('price_overrides')
        .addColumn('version', 'integer', (c) => c.primaryKey())
        .addColumn('prices', 'jsonb', (c) => c.notNull())
        .addColumn('created_by', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute()
      // Per-plan budget ceilings an admin set over the shipped ones; a field left out keeps the shipped one.
      await db.schema
        .createTable('plan_ceilings')
        .addColumn('plan', 'text', (c) => c.primaryKey().check(sql`plan in ('free','pro','enterprise')`))
        .addColumn('ceilings', 'jsonb', (c) => c.notNull())
        .addColumn('updated_by', 'text')
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute()
      // Where to tell an outside system that an approval is waiting: one per user, and one for the
      // whole installation (owner '*', set by an admin). The signing secret is sealed.
      await db.schema
        .createTable('approval_webhooks')
        .addColumn('owner', 'text', (c) => c.primaryKey())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute()
    },
  },
  '0018_approval_webhook_outbox': {
    async up(db: Kysely<any>) {
      // The approval webhook's deliveries as stored rows (docs/model-agents.md, "Telling an outside
      // system"): tries waiting for their time survive a restart, and an instance claims a row with a
      // lease before sending, so two instances never both send one try. The address and secret stay
      // in approval_webhooks and are read when sending; the body holds no secret.
      await db.schema
        .createTable('approval_webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('approval_id', 'text', (c) => c.notNull().references('approvals.id').onDelete('cascade'))
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) =>
          c.notNull().check(sql`status in ('pending','delivered','failed')`),
        )
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_at', 'timestamptz', (c) => c.notNull())
        .addColumn('lease_holder', 'text')
        .addColumn('lease_until', 'timestamptz')
        .addColumn('last_status', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute()
      await sql`create index approval_webhook_deliveries_due on approval_webhook_deliveries (next_at) where status = 'pending'`.execute(
        db,
      )
    },
  },
  '0019_usage_and_names_by_index': {
    async up(db: Kysely<any>) {
      // What uses an integration (the confirmation before it is disconnected or deleted) read every
      // agent's definition (issue 22, §7). Each agent's current version's references are kept here, as
      // written (an id or an account name), counted per kind and per the tool's platform ('' for an
      // external agent's declaration, which may name any platform's): core/agents/integration-uses.ts.
      await sql`
        create table agent_integration_uses (
          agent_id text not null references agents (id) on delete cascade,
          user_id text not null,
          ref text not null,
          platform text not null,
          kind text not null check (kind in ('step', 'tool', 'external')),
          uses integer not null check (uses > 0),
          primary key (agent_id, kind, platform, ref)
        )`.execute(db)
      await sql`create index agent_integration_uses_by_ref on agent_integration_uses (user_id, ref)`.execute(
        db,
      )
      // The agents already saved, from their current versions, as integrationUses() counts them.
      await sql`
        insert into agent_integration_uses (agent_id, user_id, ref, platform, kind, uses)
        select agent_id, user_id, ref, platform, kind, count(*)
        from (
          select a.id as agent_id, a.user_id, s.value->>'integration' as ref,
            split_part(s.value->>'tool', '.', 1) as platform, 'step' as kind
          from agents a
          join agent_versions v on v.agent_id = a.id and v.version = a.current_version
          cross join lateral jsonb_array_elements(
            case when jsonb_typeof(v.definition->'steps') = 'array' then v.definition->'steps' else '[]'::jsonb end
          ) s
          union all
          select a.id, a.user_id, t.value->>'integration', split_part(t.value->>'tool', '.', 1), 'tool'
          from agents a
          join agent_versions v on v.agent_id = a.id and v.version = a.current_version
          cross join lateral jsonb_array_elements(
            case when jsonb_typeof(v.definition->'tools') = 'array' then v.definition->'tools' else '[]'::jsonb end
          ) t
          union all
          select a.id, a.user_id, e.value, '', 'external'
          from agents a
          join agent_versions v on v.agent_id = a.id and v.version = a.current_version
          cross join lateral jsonb_array_elements_text(
            case when jsonb_typeof(v.definition->'external'->'integrations') = 'array'
              then v.definition->'external'->'integrations' else '[]'::jsonb end
          ) e
        ) named
        where coalesce(ref, '') <> ''
        group by agent_id, user_id, ref, platform, kind`.execute(db)
      // An agent by name, ignoring case (GET /v1/agents?name=, which the CLI resolves names with).
      await sql`create index agents_by_lower_name on agents (user_id, lower(name))`.execute(db)
    },
  },
  '0021_queued_run_counts': {
    async up(db: Kysely<any>) {
      // Each owner's runs waiting in the queue, kept with the rows (core/agents/queue-cap.ts): counting
      // them read one index entry per waiting run, 30–66 ms for a burst's 20,000 on the embedded
      // store's one thread, where another owner's delivery waited for it (issue 22, §2 and §9).
      // Statement triggers with transition tables add a whole statement's rows at once, one row
      // update per owner however many runs it wrote; the owners are updated in their order, so two
      // statements touching the same owners on PostgreSQL lock their rows in the same order.
      await sql`
        create table queued_run_counts (
          user_id text primary key references users (id) on delete cascade,
          waiting bigint not null
        )`.execute(db)
      await sql`
        insert into queued_run_counts (user_id, waiting)
        select user_id, count(*) from runs where status = 'queued' group by user_id`.execute(db)
      await sql`
        create function count_queued_runs() returns trigger language plpgsql as $$
        begin
          if tg_op = 'DELETE' then
            -- A user's removal deletes the count with the runs: only the counts left are updated.
            update queued_run_counts c set waiting = c.waiting - d.n
            from (select user_id, count(*) as n from old_runs where status = 'queued' group by user_id) d
            where c.user_id = d.user_id;
          elsif tg_op = 'INSERT' then
            insert into queued_run_counts as c (user_id, waiting)
            select user_id, count(*) from new_runs where status = 'queued'
            group by user_id order by user_id
            on conflict (user_id) do update set waiting = c.waiting + excluded.waiting;
          else
            -- Every update of runs comes here (a lease renewed, a run ended); only a move into or out
            -- of the queue changes a count.
            insert into queued_run_counts as c (user_id, waiting)
            select user_id, sum(d) from (
              select user_id, 1 as d from new_runs where status = 'queued'
              union all
              select user_id, -1 from old_runs where status = 'queued'
            ) moved
            group by user_id having sum(d) <> 0
            order by user_id
            on conflict (user_id) do update set waiting = c.waiting + excluded.waiting;
          end if;
          return null;
        end
        $$`.execute(db)
      for (const trigger of QUEUED_COUNT_TRIGGERS) await sql.raw(trigger).execute(db)
    },
  },
  '0022_run_write_functions': {
    async up(db: Kysely<any>) {
      // A run's most frequent statements (agents/run-state.ts, agents/worker.ts), as database
      // functions for the reason accept_events is one (0007): each connection plans them once. Sent
      // as statements, they were parsed, analysed and planned on every call, which on the embedded
      // store cost more than running them: a timeline entry's start took 0.66 ms as a statement and
      // 0.30 ms as this function, 0.44 against 0.29 ms on PostgreSQL, and a model run makes one per
      // model call and per tool call (docs/benchmarks.md, "Model agents"). Each body is the
      // statement it replaces, unchanged; changing one later is a migration that replaces it.
      //
      // begin_run_steps and claim_runs are in run-functions.ts, which says what each does.
      await sql.raw(BEGIN_RUN_STEPS).execute(db)
      // end_runs: the ends of runs that end at the same moment (one group commit), each only while
      // its claim still holds the run, with the entries each end carries; the runs it ended come
      // back.
      await sql`
        create function end_runs(p_ends jsonb, p_settled jsonb, p_endings jsonb)
        returns table (id text, holder text) language plpgsql as $$
        #variable_conflict use_column
        begin
          return query
            with ends as (
              select * from jsonb_to_recordset(p_ends)
                as e(id text, holder text, status text, result jsonb, error jsonb, model_state jsonb)
            ), done as (
              update runs set status = ends.status, result = ends.result, error = ends.error, finished_at = now(),
                model_state = coalesce(ends.model_state, runs.model_state),
                lease_holder = null, lease_expires_at = null, token_hash = null, token_sealed = null
              from ends where runs.id = ends.id and runs.lease_holder = ends.holder and runs.status = 'running'
              returning runs.id, ends.holder
            ), timeline as (
              insert into run_steps (run_id, seq, key, kind, tool_id, integration_id, input, status, output, summary, error, attempts, finished_at)
              select s.run_id, s.seq, s.key, s.kind, s.tool_id, s.integration_id, s.input, s.status, s.output, s.summary, s.error, '[]'::jsonb, now()
              from jsonb_to_recordset(p_settled)
                as s(run_id text, holder text, seq integer, key text, kind text, tool_id text, integration_id text, input jsonb, status text, output jsonb, summary jsonb, error jsonb)
              -- Only the entries of the worker that still held the run: a stalled one that lost it writes nothing.
              where (s.run_id, s.holder) in (select done.id, done.holder from done)
              on conflict (run_id, seq) do update set key = excluded.key, input = excluded.input, status = excluded.status, output = excluded.output,
                summary = excluded.summary, error = excluded.error, attempts = excluded.attempts, finished_at = excluded.finished_at
            ), ended as (
              update run_steps set status = e.status, output = e.output, summary = e.summary, error = e.error,
                attempts = coalesce(e.attempts, run_steps.attempts), finished_at = now()
              from jsonb_to_recordset(p_endings)
                as e(run_id text, holder text, seq integer, status text, output jsonb, summary jsonb, error jsonb, attempts jsonb)
              where run_steps.run_id = e.run_id and run_steps.seq = e.seq and (e.run_id, e.holder) in (select done.id, done.holder from done)
            )
            select done.id, done.holder from done;
        end
        $$`.execute(db)
      await sql.raw(CLAIM_RUNS).execute(db)
    },
  },
}

/**
 * 0023 partitions runs by month on the embedded store only, and is recorded as done, with nothing
 * to do, on PostgreSQL. It bounds a pause only the embedded store has: its maintenance vacuums on
 * the one thread every statement waits for, where PostgreSQL's autovacuum works beside the service.
 * On PostgreSQL the partitions cost the run paths far more than that pause is worth: every statement
 * on runs then locked each partition and each of its indexes (a claim over five months held 156
 * relation locks), and the trigger path's p99 went from 33–97 ms to about a second
 * (docs/benchmarks.md, "An old installation").
 */
const onPostgresRunsStayOneTable: Migration = { async up() {} }

/**
 * 0024 claims runs, and writes their timeline entries and ends, by their keys (run-functions.ts
 * says why). Replacing a function resets its settings, so on the embedded store the three keep
 * their one plan again (0023).
 */
const runWritesByKey = (store: StoreKind): Migration => ({
  async up(db: Kysely<any>) {
    await sql.raw(BEGIN_RUN_STEPS_BY_KEY).execute(db)
    await sql.raw(END_RUNS_BY_KEY).execute(db)
    await sql.raw(CLAIM_RUNS_BY_KEY).execute(db)
    if (store === 'pglite')
      for (const fn of ['claim_runs', 'begin_run_steps', 'end_runs'])
        await sql.raw(`alter function ${fn} set plan_cache_mode = force_generic_plan`).execute(db)
  },
})

/** 0025: the begins of many claims in one statement (run-functions.ts, begin_runs_steps). */
const beginsTogether = (store: StoreKind): Migration => ({
  async up(db: Kysely<any>) {
    await sql.raw(BEGIN_RUNS_STEPS).execute(db)
    if (store === 'pglite')
      await sql.raw('alter function begin_runs_steps set plan_cache_mode = force_generic_plan').execute(db)
  },
})

/** 0026: begins answered with their entries' places and stamps only (run-functions.ts, begin_runs_steps_stamped). */
const beginsStamped = (store: StoreKind): Migration => ({
  async up(db: Kysely<any>) {
    await sql.raw(BEGIN_RUNS_STEPS_STAMPED).execute(db)
    if (store === 'pglite')
      await sql
        .raw('alter function begin_runs_steps_stamped set plan_cache_mode = force_generic_plan')
        .execute(db)
  },
})

export type StoreKind = 'pglite' | 'postgres'

export const migrationsFor = (store: StoreKind): MigrationProvider => ({
  async getMigrations() {
    return {
      ...migrations,
      '0023_runs_by_month': store === 'pglite' ? runsByMonth : onPostgresRunsStayOneTable,
      '0024_run_writes_by_key': runWritesByKey(store),
      '0025_begins_together': beginsTogether(store),
      '0026_begins_stamped': beginsStamped(store),
    }
  },
})
