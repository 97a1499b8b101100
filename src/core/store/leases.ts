import { sql } from 'kysely'
import { randomToken } from '../ids.ts'
import type { Db } from './schema.ts'

/**
 * How long a lease holds without its holder: a process that dies holding one blocks the key no
 * longer than this. Holders must finish well within it (the token request's own deadline is 15 s).
 */
export const LEASE_MS = 60_000
const FIRST_POLL_MS = 20
const MAX_POLL_MS = 250

/**
 * A named lock shared by every process on a PostgreSQL store that holds no database connection
 * while it is held (docs/scaling.md): claiming and releasing are one short statement each, through
 * the store's pool. Waiting is polling, so a waiter holds no connection either; ten holders that read
 * through the same pool can never deadlock on it. The lease ends after LEASE_MS even if its holder
 * never releases it.
 */
export async function withLease<T>(
  db: Db,
  key: string,
  fn: () => Promise<T>,
  options: { leaseMs?: number } = {},
): Promise<T> {
  const holder = randomToken(12)
  const leaseMs = options.leaseMs ?? LEASE_MS
  for (
    let pollMs = FIRST_POLL_MS;
    !(await claim(db, key, holder, leaseMs));
    pollMs = Math.min(MAX_POLL_MS, pollMs * 2)
  ) {
    await new Promise((resolve) => setTimeout(resolve, pollMs * (0.5 + Math.random() / 2)))
  }
  try {
    return await fn()
  } finally {
    await db.deleteFrom('leases').where('key', '=', key).where('holder', '=', holder).execute()
  }
}

/** Takes the lease if nobody holds it or its holder's time ran out (on the database's clock). */
async function claim(db: Db, key: string, holder: string, leaseMs: number): Promise<boolean> {
  const { rows } = await sql<{ holder: string }>`
    insert into leases (key, holder, expires_at) values (${key}, ${holder}, now() + ${leaseMs} * interval '1 millisecond')
    on conflict (key) do update set holder = excluded.holder, expires_at = excluded.expires_at
      where leases.expires_at <= now()
    returning holder`.execute(db)
  return rows.length === 1
}

/**
 * Runs `fn` if nobody holds the lease `key`, else answers undefined at once: for periodic work that
 * one process at a time should do (pruning old runs), where the others have nothing to wait for.
 */
export async function ifLeaseFree<T>(
  db: Db,
  key: string,
  leaseMs: number,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  const holder = randomToken(12)
  if (!(await claim(db, key, holder, leaseMs))) return undefined
  try {
    return await fn()
  } finally {
    await db.deleteFrom('leases').where('key', '=', key).where('holder', '=', holder).execute()
  }
}
