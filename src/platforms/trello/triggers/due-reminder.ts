import { z } from 'zod'
import type { ToolContext } from '../../../core/tools/define.ts'
import { defineTrigger, type PollCursor, type PollResult } from '../../../core/triggers/define.ts'
import { boardOptions } from '../options.ts'
import { IdBoards } from './board-trigger.ts'
import { BoardRef, CardRef, ListRef, SAMPLE } from './event.ts'

/**
 * Card Due Date Reminder, polled: Trello sends no webhook before a due date. Each poll reads the
 * open cards of open lists of the chosen boards (one request per board, the board with its lists
 * and cards) and fires once per card and due value when its reminder time (`offset_minutes` before
 * the due date) has come. A reminder time that fell between the last poll and this one fires even
 * when the due date itself has passed meanwhile (a slow or missed poll, the service down for a
 * while), up to MAX_LATENESS_MS late; a card that enters its window later (made, or its due date
 * changed) fires while its due date is still ahead. The cursor remembers which (card, due) pairs
 * fired while they can still fire, so a changed due date fires again and the cursor stays small.
 * Archived cards, cards in archived lists and completed due dates never fire.
 */

const MINUTE_MS = 60_000
/** Thirty days. */
const MAX_OFFSET_MINUTES = 43_200
/**
 * The latest a reminder fires after its time (docs/triggers.md): a day. A reminder that comes later
 * than that, after a longer outage, is more noise than help, and the event's `remindAt` and `due`
 * let an agent tell a late one from one on time.
 */
export const MAX_LATENESS_MS = 24 * 60 * MINUTE_MS

interface BoardWithCards {
  id: string
  name?: string
  shortLink?: string
  lists?: Array<{ id: string; name?: string }>
  cards?: Array<{
    id: string
    name?: string
    shortLink?: string
    idShort?: number
    due: string | null
    dueComplete?: boolean
    closed?: boolean
    idList: string
  }>
}

const config = z.object({
  board_ids: IdBoards,
  offset_minutes: z
    .number({ error: 'must be a number of minutes' })
    .int('must be a whole number of minutes')
    .min(1, 'must be at least 1 minute')
    .max(MAX_OFFSET_MINUTES, `must be at most ${MAX_OFFSET_MINUTES} minutes (30 days)`)
    .default(60)
    .describe('How long before the due date the reminder fires, in minutes'),
})
type Config = z.output<typeof config>

/**
 * `fired`: card id → the due date that already fired for it, while it could still fire;
 * `polledAt`: when the poll that wrote the cursor looked (absent in cursors from before it was kept).
 */
type Cursor = { fired: Record<string, string>; polledAt?: string }

const event = z.object({
  card: CardRef.extend({ due: z.string().describe('The due date (ISO 8601)') }),
  list: ListRef.optional(),
  board: BoardRef,
  due: z.string().describe('The due date (ISO 8601)'),
  remindAt: z.string().describe('When the reminder was due to fire: the due date less the offset'),
})

async function poll(ctx: ToolContext, cfg: Config, cursor: PollCursor, now: number): Promise<PollResult> {
  const firstPoll = cursor === null
  const before = (cursor as Cursor | null)?.fired ?? {}
  const lastPoll = Date.parse((cursor as Cursor | null)?.polledAt ?? '') || now
  const fired: Record<string, string> = {}
  const events: PollResult['events'] = []
  const offsetMs = cfg.offset_minutes * MINUTE_MS
  for (const idBoard of [...new Set(cfg.board_ids)]) {
    const board: BoardWithCards = await ctx.api.get(`/1/boards/${encodeURIComponent(idBoard)}`, {
      fields: 'name,shortLink',
      lists: 'open',
      list_fields: 'name',
      cards: 'visible',
    })
    const lists = new Map((board.lists ?? []).map((l) => [l.id, l]))
    for (const card of board.cards ?? []) {
      if (!card.due || card.closed || card.dueComplete) continue
      const due = Date.parse(card.due)
      const remindAt = due - offsetMs
      if (Number.isNaN(due) || now < remindAt || now - remindAt > MAX_LATENESS_MS) continue
      // Past its due date a card fires only if its reminder time fell since the last poll: a card
      // made (or moved to a date) already past due is no reminder.
      const stillAhead = now < due
      if (!stillAhead && remindAt <= lastPoll && before[card.id] !== card.due) continue
      fired[card.id] = card.due
      if (firstPoll || before[card.id] === card.due) continue
      const list = lists.get(card.idList)
      events.push({
        candidate: { dedupeKey: `${card.id}:${card.due}`, type: 'cardDueSoon', raw: card },
        event: {
          card: {
            id: card.id,
            name: card.name,
            shortLink: card.shortLink,
            idShort: card.idShort,
            due: card.due,
          },
          ...(list ? { list: { id: list.id, name: list.name } } : {}),
          board: { id: board.id, name: board.name, shortLink: board.shortLink },
          due: card.due,
          remindAt: new Date(remindAt).toISOString(),
        },
      })
    }
  }
  return { events, cursor: { fired, polledAt: new Date(now).toISOString() } }
}

const sampleDue = '2026-03-02T17:00:00.000Z'

export const cardDueDateReminder = defineTrigger({
  id: 'trello.card_due_date_reminder',
  title: 'Card Due Date Reminder',
  description:
    "Starts a set time before a card's due date, once per card and due date (again if the due date changes). Not for archived cards or completed due dates. Checked by polling: a reminder whose time fell between two polls fires at the later one, up to a day late.",
  mode: 'polled',
  config,
  configOptions: { board_ids: boardOptions },
  event,
  sample: {
    card: { ...SAMPLE.card, due: sampleDue },
    list: SAMPLE.list,
    board: SAMPLE.board,
    due: sampleDue,
    remindAt: '2026-03-02T16:00:00.000Z',
  },
  poll,
})
