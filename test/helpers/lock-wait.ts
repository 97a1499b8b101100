import type pg from 'pg'

/**
 * Waits until a backend of `observer`'s database other than its own waits for a lock: the first
 * half of a deadlock a test makes on purpose (test/removal-deadlock.test.ts). It is read from
 * pg_locks, not pg_stat_activity, which may still show the waiting connection's earlier statement.
 */
export async function untilABackendWaitsForALock(
  observer: pg.Client,
  who: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const { rows } = await observer.query(
      `select 1 from pg_locks where not granted and pid <> pg_backend_pid()
       and pid in (select pid from pg_stat_activity where datname = current_database())`,
    )
    if (rows.length > 0) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${who} to wait for a lock`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
