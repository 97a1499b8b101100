import type { ApiContext } from '../context.ts'
import { fail, invalidValue } from '../errors.ts'
import { OBJECT_ID, shortLink } from '../ids.ts'
import type { Attachment, Board, Card } from '../model.ts'
import { resolvePos } from '../pos.ts'

/** Card arguments shared by create and update: member and label id lists, links. */

/** A shortLink no other card or board uses. */
export function uniqueShortLink(ctx: ApiContext): string {
  for (;;) {
    const link = shortLink()
    if (!ctx.store.cardByRef(link) && !ctx.store.boardByRef(link)) return link
  }
}

/** Comma-separated member ids, each a member of the board. */
export function boardMemberIds(ctx: ApiContext, board: Board, name: string): string[] | undefined {
  const ids = ctx.params.list(name)
  if (ids === undefined) return undefined
  if (!ids.every((id) => OBJECT_ID.test(id) && board.memberships.has(id))) return fail(invalidValue(name))
  return [...new Set(ids)]
}

/** Comma-separated label ids, each a label of the board. */
export function boardLabelIds(ctx: ApiContext, board: Board, name: string): string[] | undefined {
  const ids = ctx.params.list(name)
  if (ids === undefined) return undefined
  if (!ids.every((id) => OBJECT_ID.test(id) && ctx.store.labels.get(id)?.idBoard === board.id))
    return fail(invalidValue(name))
  return [...new Set(ids)]
}

export function linkAttachment(
  ctx: ApiContext,
  card: Card,
  url: string,
  name: string | undefined,
  mimeType: string | undefined,
): Attachment {
  const attachment: Attachment = {
    id: ctx.sb.newId(),
    name: name ?? url,
    url,
    mimeType: mimeType ?? '',
    idMember: ctx.actor.member.id,
    date: ctx.now,
    pos: resolvePos('bottom', card.attachments) as number,
  }
  card.attachments.push(attachment)
  return attachment
}

export function validUrl(value: string | undefined): value is string {
  if (!value) return false
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

export interface CheckItemDetails {
  due?: number | null
  dueReminder?: number | null
  idMember?: string | null
}

/**
 * A check item's own `due`, `dueReminder` (minutes before due; -1 or null for none) and
 * `idMember` (a member of the card's board, or null). Absent parameters stay absent, so an update
 * leaves them alone.
 */
export function checkItemDetails(ctx: ApiContext, board: Board): CheckItemDetails {
  const { params } = ctx
  const details: CheckItemDetails = {}
  const due = params.date('due')
  if (due !== undefined) details.due = due
  if (params.has('dueReminder')) {
    const raw = params.raw('dueReminder')
    const minutes =
      raw === null || raw === '' || raw === 'null'
        ? null
        : typeof raw === 'number' || typeof raw === 'string'
          ? Number(raw)
          : NaN
    if (minutes !== null && (!Number.isInteger(minutes) || minutes < -1))
      return fail(invalidValue('dueReminder'))
    details.dueReminder = minutes === -1 ? null : minutes
  }
  if (params.has('idMember')) {
    const id = params.raw('idMember')
    if (id === null || id === '' || id === 'null') details.idMember = null
    else if (typeof id === 'string' && OBJECT_ID.test(id) && board.memberships.has(id)) details.idMember = id
    else return fail(invalidValue('idMember'))
  }
  return details
}
