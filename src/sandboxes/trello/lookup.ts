import type { ApiContext } from './context.ts'
import { cardNotFound, fail, invalidId, modelNotFound, unauthorizedPermission } from './errors.ts'
import { OBJECT_ID, SHORT_LINK } from './ids.ts'
import type { Board, Card, CheckItem, Checklist, Label, List, Member } from './model.ts'

/**
 * Finding models for a request, with Trello's answers: a malformed id is 400 `invalid id`, a
 * missing model 404, a model on a board the member cannot see 401
 * `unauthorized permission requested`.
 */

export function canSee(ctx: ApiContext, board: Board): boolean {
  return board.memberships.has(ctx.actor.member.id) || board.permissionLevel === 'public'
}

/** Writing needs board membership, even on a public board. */
export function canWrite(ctx: ApiContext, board: Board): boolean {
  return board.memberships.has(ctx.actor.member.id)
}

function guard(ctx: ApiContext, board: Board | undefined, write: boolean): Board {
  if (!board) return fail(modelNotFound())
  if (!(write ? canWrite(ctx, board) : canSee(ctx, board))) return fail(unauthorizedPermission())
  return board
}

const isWrite = (ctx: ApiContext) => ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD'

export function boardFor(ctx: ApiContext, ref: string, write = isWrite(ctx)): Board {
  if (!OBJECT_ID.test(ref) && !SHORT_LINK.test(ref)) return fail(invalidId())
  return guard(ctx, ctx.store.boardByRef(ref), write)
}

export function cardFor(ctx: ApiContext, ref: string, write = isWrite(ctx)): Card {
  if (!OBJECT_ID.test(ref) && !SHORT_LINK.test(ref)) return fail(invalidId())
  const card = ctx.store.cardByRef(ref)
  if (!card) return fail(cardNotFound())
  guard(ctx, ctx.store.boards.get(card.idBoard), write)
  return card
}

function byId<T extends { idBoard: string }>(
  ctx: ApiContext,
  id: string,
  found: T | undefined,
  write: boolean,
): T {
  if (!OBJECT_ID.test(id)) return fail(invalidId())
  if (!found) return fail(modelNotFound())
  guard(ctx, ctx.store.boards.get(found.idBoard), write)
  return found
}

export const listFor = (ctx: ApiContext, id: string, write = isWrite(ctx)): List =>
  byId(ctx, id, ctx.store.lists.get(id), write)
export const labelFor = (ctx: ApiContext, id: string, write = isWrite(ctx)): Label =>
  byId(ctx, id, ctx.store.labels.get(id), write)
export const checklistFor = (ctx: ApiContext, id: string, write = isWrite(ctx)): Checklist =>
  byId(ctx, id, ctx.store.checklists.get(id), write)

export function checkItemOn(
  ctx: ApiContext,
  card: Card,
  id: string,
): { checklist: Checklist; item: CheckItem } {
  if (!OBJECT_ID.test(id)) return fail(invalidId())
  for (const checklist of ctx.store.checklistsOf(card.id)) {
    const item = checklist.checkItems.find((i) => i.id === id)
    if (item) return { checklist, item }
  }
  return fail(modelNotFound())
}

/** `me`, an id or a username (sources: Trello objects). */
export function memberFor(ctx: ApiContext, ref: string): Member {
  if (ref === 'me') return ctx.actor.member
  const member = ctx.store.memberByRef(ref)
  if (!member) return fail(OBJECT_ID.test(ref) || /^[a-z0-9_]+$/i.test(ref) ? modelNotFound() : invalidId())
  return member
}

/** Members who share a board with the viewer, or the viewer themself, are visible. */
export function sharesBoard(ctx: ApiContext, member: Member): boolean {
  if (member.id === ctx.actor.member.id) return true
  return ctx.store.boardsOf(member.id).some((b) => b.memberships.has(ctx.actor.member.id))
}
