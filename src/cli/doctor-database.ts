import pg from 'pg'
import type { DoctorCheck } from './doctor.ts'

/**
 * Whether the operator's PostgreSQL vacuums and analyzes Switchyard's tables by itself. Every
 * lookup on the intake's road reads by key and costs the same without fresh statistics
 * (docs/scaling.md), but the run queue's dead rows are only ever removed by autovacuum: with it off,
 * claims and sweeps slow down as runs finish. Off for the server (`autovacuum`, or `track_counts`,
 * which it needs) or for one of the tables (`autovacuum_enabled = false`) both count. The address is
 * never printed: it may hold a password.
 */
export async function autovacuumCheck(databaseUrl: string): Promise<DoctorCheck> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 })
  try {
    await client.connect()
    const settings = await client.query<{ name: string; setting: string }>(
      `select name, setting from pg_settings where name in ('autovacuum', 'track_counts')`,
    )
    const off = settings.rows.filter((r) => r.setting !== 'on').map((r) => r.name)
    const tables = await client.query<{ relname: string }>(
      `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind = 'r' and n.nspname = current_schema()
          and c.reloptions::text[] && array['autovacuum_enabled=false', 'autovacuum_enabled=off']
        order by c.relname`,
    )
    const problems = [
      ...(off.length
        ? [
            `off on the server (${off.join(', ')}): set ${off.map((n) => `${n} = on`).join(' and ')} in postgresql.conf, or vacuum and analyze the database yourself`,
          ]
        : []),
      ...(tables.rows.length
        ? [
            `off for the tables ${tables.rows.map((r) => r.relname).join(', ')}: alter table … reset (autovacuum_enabled)`,
          ]
        : []),
    ]
    return problems.length
      ? { name: 'autovacuum', ok: false, detail: `${problems.join('; ')} (docs/scaling.md)` }
      : { name: 'autovacuum', ok: true, detail: 'on' }
  } catch (err) {
    return {
      name: 'autovacuum',
      ok: false,
      detail: `could not ask the database: ${err instanceof Error ? err.message : String(err)}`,
    }
  } finally {
    await client.end().catch(() => {})
  }
}
