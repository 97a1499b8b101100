/** PostgreSQL's error code for a transaction it rolled back to break a deadlock (its manual, appendix A). */
const DEADLOCK_DETECTED = '40P01'

/** How many times a transaction is tried in all before its deadlock is the caller's error. */
const TRIES = 4

/**
 * Runs `transaction` again when PostgreSQL chose it as the victim of a deadlock: its manual asks
 * applications to retry such a transaction, which was rolled back whole, so nothing of the failed
 * try remains. For transactions that take their locks in an order the rest of the service cannot
 * share, such as a user's removal (access/admin.ts), which holds the user's row while it deletes
 * rows that ending runs, claims and stored deliveries lock first and then check against that row.
 * The embedded store has one connection and never deadlocks.
 */
export async function retryingDeadlocks<T>(transaction: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await transaction()
    } catch (err) {
      if (tries >= TRIES || (err as { code?: unknown }).code !== DEADLOCK_DETECTED) throw err
      // A short, random pause, so the transactions it met can finish before it locks again.
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * tries))
    }
  }
}
