import type { Account, User } from './model.ts'
import { userJson } from './presenters.ts'
import type { ApiContext } from './router.ts'

/**
 * Sideloads (`?include=users`): Zendesk adds the records a response refers to, saving the client a
 * request per id. Only `users` is emulated; other include values are ignored, as Zendesk ignores
 * unknown ones.
 */
export function wantsUsers(ctx: ApiContext): boolean {
  return (ctx.req.query.get('include') ?? '')
    .split(',')
    .map((s) => s.trim())
    .includes('users')
}

export function usersSideload(
  ctx: ApiContext,
  account: Account,
  ids: Iterable<number | null>,
): Record<string, unknown>[] {
  const users = new Map<number, User>()
  for (const id of ids) {
    const user = id === null ? undefined : account.users.get(id)
    if (user) users.set(user.id, user)
  }
  return [...users.values()].map((u) => userJson(u, ctx.base))
}
