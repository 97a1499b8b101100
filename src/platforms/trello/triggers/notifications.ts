import { z } from 'zod'
import type { ToolContext } from '../../../core/tools/define.ts'
import { defineTrigger, type PollCursor, type PollResult } from '../../../core/triggers/define.ts'
import { BoardRef, CardRef, ListRef, MemberRef, SAMPLE } from './event.ts'

/**
 * New Notification, polled: Trello has no webhook for a member's notifications. The cursor is the
 * newest notification id seen; ids are ObjectIds, which sort by creation (sources: Trello ids and
 * positions), so `since=<id>` misses nothing that shares the cursor's timestamp. Older pages are
 * read with `before=<oldest id so far>`, which stays stable while new ones arrive. The first poll
 * only sets the cursor.
 */

const PAGE = 100
/** At most this many pages per poll: beyond 1000 new notifications between two polls, the oldest are skipped. */
const MAX_PAGES = 10

interface Notification {
  id: string
  type: string
  date: string
  unread?: boolean
  idMemberCreator?: string | null
  data?: {
    board?: { id: string }
    card?: { id: string }
    list?: { id: string }
    text?: string
    [key: string]: unknown
  }
  memberCreator?: { id: string; username?: string; fullName?: string } | null
}

const config = z.object({
  types: z
    .array(z.string().regex(/^[A-Za-z]+$/, 'must be a Trello notification type such as mentionedOnCard'), {
      error: 'must be a list of notification types',
    })
    .max(50)
    .optional()
    .describe(
      'Only these notification types (mentionedOnCard, addedToCard, commentCard, changeCard...); all when empty',
    ),
})
type Config = z.output<typeof config>

const event = z.object({
  notification: z.object({
    id: z.string(),
    type: z.string(),
    date: z.string(),
    unread: z.boolean().optional(),
  }),
  board: BoardRef.optional(),
  list: ListRef.optional(),
  card: CardRef.optional(),
  member: MemberRef.optional().describe('Who caused the notification'),
  text: z.string().optional().describe('The comment text, for comment and mention notifications'),
  data: z.record(z.string(), z.unknown()),
})

function eventOf(n: Notification): Record<string, unknown> {
  const data = n.data ?? {}
  const creator = n.memberCreator
  return {
    notification: { id: n.id, type: n.type, date: n.date, unread: n.unread },
    ...(data.board ? { board: data.board } : {}),
    ...(data.list ? { list: data.list } : {}),
    ...(data.card ? { card: data.card } : {}),
    ...(creator
      ? { member: { id: creator.id, username: creator.username, fullName: creator.fullName } }
      : {}),
    ...(typeof data.text === 'string' ? { text: data.text } : {}),
    data,
  }
}

const read = (
  ctx: ToolContext,
  query: Record<string, string | number | undefined>,
): Promise<Notification[]> => ctx.api.get('/1/members/me/notifications', query)

async function poll(ctx: ToolContext, cfg: Config, cursor: PollCursor, _now: number): Promise<PollResult> {
  const filter = cfg.types?.length ? cfg.types.join(',') : undefined
  if (cursor === null) {
    const [newest] = await read(ctx, { limit: 1 })
    return { events: [], cursor: { lastId: newest?.id ?? null } }
  }
  const since = typeof cursor.lastId === 'string' ? cursor.lastId : undefined
  const seen = new Map<string, Notification>()
  let before: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const batch = await read(ctx, { since, before, limit: PAGE, filter })
    for (const n of batch) seen.set(n.id, n)
    if (batch.length < PAGE) break
    before = batch.at(-1)!.id
  }
  // Emitted oldest first, as they happened.
  const fresh = [...seen.values()].sort((a, b) => a.id.localeCompare(b.id))
  // A filtered read says nothing about newer notifications of other types; the cursor still moves past what was read.
  const newest = fresh.at(-1)?.id ?? since ?? null
  return {
    events: fresh.map((n) => ({
      candidate: {
        dedupeKey: n.id,
        type: n.type,
        raw: n,
        ...(n.idMemberCreator ? { actorId: n.idMemberCreator } : {}),
      },
      event: eventOf(n),
    })),
    cursor: { lastId: newest },
  }
}

export const newNotification = defineTrigger({
  id: 'trello.new_notification',
  title: 'New Notification',
  description:
    'Starts when the connected Trello member receives a notification (mentioned, added to a card, a comment or change on their card...), optionally only some types. Checked by polling.',
  mode: 'polled',
  config,
  event,
  sample: {
    notification: {
      id: '63e2af230b9295aa94254900',
      type: 'mentionedOnCard',
      date: '2026-03-02T09:31:00.000Z',
      unread: true,
    },
    board: SAMPLE.board,
    card: SAMPLE.card,
    member: SAMPLE.member,
    text: 'Reproduced on Safari 17, @ada can you look?',
    data: { text: 'Reproduced on Safari 17, @ada can you look?', board: SAMPLE.board, card: SAMPLE.card },
  },
  poll,
})
