import { isPostgresError, POSTGRES_ERRORS } from './postgres-errors.ts'

/** How many times a transaction is tried in all before its deadlock is the caller's error. */
const TRIES = 4

/**
 * Runs `transaction` again when PostgreSQL chose it as the victim of a deadlock: its manual asks
 * applications to retry such a transaction, which was rolled back whole, so nothing of the failed
 * try remains. For transactions that take their locks in an order the rest of the service cannot
 * share, such as a user's removal (access/admin.ts): its last statement locks the user's row and
 * deletes the rows that refer to it, while a run that is ending or being claimed may hold one of
 * those rows and wait to check it against the user's row (a foreign key's "for key share"). The
 * runs' begins and ends (agents/run-state.ts) are tried again too, for when PostgreSQL picks them.
 * The embedded store has one connection and never deadlocks.
 */
export async function retryingDeadlocks<T>(transaction: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await transaction()
    } catch (err) {
      if (tries >= TRIES || !isPostgresError(err, POSTGRES_ERRORS.deadlockDetected)) throw err
      // A short, random pause, so the transactions it met can finish before it locks again.
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * tries))
    }
  }
}
