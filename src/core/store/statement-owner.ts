import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * Whose work a statement is done for: set where a run or a delivery is handled for one owner, and
 * read where the embedded store's statements take their turns (pglite-dialect.ts), so that one
 * owner's many statements wait in a line of their own and another owner's statement waits for one
 * of them, not for every one queued before it (docs/scaling.md, "One user's burst"). Carried by
 * the async context, so nothing between the handler and the store has to pass it along.
 */
const owners = new AsyncLocalStorage<string>()

/** Runs `fn` with every statement it makes (and anything it starts) counted as `owner`'s. */
export function asOwner<T>(owner: string, fn: () => T): T {
  return owners.run(owner, fn)
}

/**
 * Runs `fn` as no one's: for a write shared by several owners (a batch) that one of them happened
 * to start, which would otherwise wait in that owner's line.
 */
export function asNoOwner<T>(fn: () => T): T {
  return owners.exit(fn)
}

/** The owner of the work in progress, if any. */
export function statementOwner(): string | undefined {
  return owners.getStore()
}
