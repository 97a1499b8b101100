import { sql } from 'kysely'
import type { Db } from '../../src/core/store/database.ts'

export interface SeededStore {
  userId: string
  /** One webhook's token and id, with `perWebhook` active subscriptions on it. */
  token: string
  webhookId: string
  agentId: string
}

/**
 * A store as large as issue 22's section 7 measured (1,000 integrations, 10,000 active subscriptions),
 * written straight into the tables in a few statements so that a test spends its time on the lookup
 * it checks, not on 10,000 REST calls. No ANALYZE follows: the costs must hold on statistics as
 * they are right after the rows were created.
 */
export async function seedManySubscriptions(
  db: Db,
  {
    integrations = 1_000,
    perWebhook = 10,
    tag = 'big',
  }: { integrations?: number; perWebhook?: number; tag?: string } = {},
): Promise<SeededStore> {
  const userId = `usr_${tag}`
  await sql`insert into users (id, email, name, plan) values (${userId}, ${`${tag}@example.test`}, 'Many', 'enterprise')`.execute(
    db,
  )
  await sql`insert into integrations (id, user_id, platform, external_id, account_name, status)
    select ${tag} || '_int_' || i, ${userId}, 'trello', 'member' || i, 'account' || i, 'connected'
    from generate_series(1, ${integrations}::int) i`.execute(db)
  await sql`insert into agents (id, user_id, name, current_version)
    select ${tag} || '_agt_' || i, ${userId}, 'agent ' || i, 1 from generate_series(1, ${integrations}::int) i`.execute(
    db,
  )
  await sql`insert into agent_versions (agent_id, version, definition)
    select ${tag} || '_agt_' || i, 1, ${JSON.stringify({ inputs: [], steps: [] })}::jsonb
    from generate_series(1, ${integrations}::int) i`.execute(db)
  await sql`insert into webhooks (id, user_id, integration_id, platform, model_key, managed, token, status)
    select ${tag} || '_whk_' || i, ${userId}, ${tag} || '_int_' || i, 'trello', 'board' || i, true,
      rpad(${tag} || 'token' || i, 32, 'x'), 'active'
    from generate_series(1, ${integrations}::int) i`.execute(db)
  await sql`insert into subscriptions (id, user_id, agent_id, trigger_id, integration_id, config, mapping, status)
    select ${tag} || '_sub_' || i || '_' || j, ${userId}, ${tag} || '_agt_' || i, 'trello.card_created',
      ${tag} || '_int_' || i, '{}'::jsonb, '{}'::jsonb, 'active'
    from generate_series(1, ${integrations}::int) i, generate_series(1, ${perWebhook}::int) j`.execute(db)
  await sql`insert into subscription_webhooks (subscription_id, webhook_id)
    select ${tag} || '_sub_' || i || '_' || j, ${tag} || '_whk_' || i
    from generate_series(1, ${integrations}::int) i, generate_series(1, ${perWebhook}::int) j`.execute(db)
  return {
    userId,
    token: `${tag}token1`.padEnd(32, 'x'),
    webhookId: `${tag}_whk_1`,
    agentId: `${tag}_agt_1`,
  }
}

/** Scans and rows read per table by what `work` does, counted by the database in the current transaction. */
export async function tableReads(
  db: Db,
  work: (trx: Db) => Promise<unknown>,
): Promise<Record<string, { seqScans: number; indexRows: number; seqRows: number }>> {
  return db.transaction().execute(async (trx) => {
    const before = await reads(trx)
    await work(trx)
    const after = await reads(trx)
    const out: Record<string, { seqScans: number; indexRows: number; seqRows: number }> = {}
    for (const [table, a] of Object.entries(after)) {
      const b = before[table] ?? { seqScans: 0, indexRows: 0, seqRows: 0 }
      out[table] = {
        seqScans: a.seqScans - b.seqScans,
        indexRows: a.indexRows - b.indexRows,
        seqRows: a.seqRows - b.seqRows,
      }
    }
    return out
  })
}

async function reads(db: Db) {
  const { rows } = await sql<{
    relname: string
    seq_scan: string
    seq_tup_read: string
    idx_tup_fetch: string | null
  }>`
    select relname, seq_scan, seq_tup_read, idx_tup_fetch from pg_stat_xact_user_tables`.execute(db)
  return Object.fromEntries(
    rows.map((r) => [
      r.relname,
      {
        seqScans: Number(r.seq_scan),
        seqRows: Number(r.seq_tup_read),
        indexRows: Number(r.idx_tup_fetch ?? 0),
      },
    ]),
  )
}
