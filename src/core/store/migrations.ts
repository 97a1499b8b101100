import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely'

// One set of migrations for PGlite and PostgreSQL: plain PostgreSQL DDL only.
const migrations: Record<string, Migration> = {
  '0001_access_and_integrations': {
    async up(db: Kysely<any>) {
      await db.schema.createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('plan', 'text', (c) => c.notNull().check(sql`plan in ('free','pro','enterprise')`))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute()
      await db.schema.createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull().unique())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('last_used_at', 'timestamptz')
        .execute()
      await db.schema.createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute()
      await db.schema.createTable('integrations')
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
      await db.schema.createIndex('integrations_by_user').on('integrations').columns(['user_id', 'platform']).execute()
      await db.schema.createTable('connect_sessions')
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
      await db.schema.createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute()
    },
  },
  '0002_rate_budget': {
    async up(db: Kysely<any>) {
      // The shared request log of every rate budget (see core/limits/budget-postgres.ts).
      await db.schema.createTable('rate_events')
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('at_ms', 'bigint', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('rate_events_by_key_time').on('rate_events').columns(['key', 'at_ms']).execute()
      await db.schema.createTable('rate_blocks')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('until_ms', 'bigint', (c) => c.notNull())
        .execute()
    },
  },
  '0003_connected_with': {
    async up(db: Kysely<any>) {
      // How the credential was obtained, so a reconnect can offer the same way again.
      await db.schema.alterTable('integrations')
        .addColumn('connected_with', 'text', (c) => c.notNull().defaultTo('authorization'))
        .execute()
    },
  },
  '0004_user_roles': {
    async up(db: Kysely<any>) {
      // Admins manage users (docs/security.md). An upgraded database makes its oldest user the admin,
      // as a fresh one makes its first user one: there is always someone who can manage the others.
      await db.schema.alterTable('users')
        .addColumn('role', 'text', (c) => c.notNull().defaultTo('member').check(sql`role in ('admin','member')`))
        .execute()
      await sql`update users set role = 'admin' where id = (select id from users order by created_at, id limit 1)`.execute(db)
    },
  },
  '0005_leases': {
    async up(db: Kysely<any>) {
      // Locks that hold no connection while held: the token refresh lock (docs/scaling.md).
      await db.schema.createTable('leases')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute()
    },
  },
}

export const migrationProvider: MigrationProvider = {
  async getMigrations() { return migrations },
}
