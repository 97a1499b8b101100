import PgBoss from 'pg-boss'
import type { Store } from './database.ts'

// pg-boss on both stores: on PostgreSQL it shares the store's pool through `db`, on PGlite it goes
// through the same serialised connection as everything else.
export async function startQueue(store: Store): Promise<PgBoss> {
  const boss = new PgBoss({
    db: store.sql as PgBoss.Db,
    schema: 'pgboss',
    // Maintenance every five minutes is plenty for this service; it is a cost on a shared PGlite connection.
    maintenanceIntervalSeconds: 300,
  })
  await boss.start()
  return boss
}
