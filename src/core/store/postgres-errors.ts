/**
 * The PostgreSQL error codes the service acts on (PostgreSQL's manual, appendix A). The embedded
 * store is PostgreSQL too, so its errors carry the same codes.
 */
export const POSTGRES_ERRORS = {
  /** A transaction PostgreSQL rolled back to break a deadlock. */
  deadlockDetected: '40P01',
  /** A row whose foreign key finds no row. */
  foreignKeyViolation: '23503',
} as const

/** Whether `err` is a PostgreSQL error with this code. */
export function isPostgresError(
  err: unknown,
  code: (typeof POSTGRES_ERRORS)[keyof typeof POSTGRES_ERRORS],
): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code
}
