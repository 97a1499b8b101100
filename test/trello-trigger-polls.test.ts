import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ToolContext } from '../src/core/tools/define.ts'
import type { AnyTrigger, PollCursor, PollResult } from '../src/core/triggers/define.ts'
import { trello } from '../src/platforms/trello/platform.ts'
import { MAX_LATENESS_MS } from '../src/platforms/trello/triggers/due-reminder.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectTrelloWithToken, TRELLO, trelloControl } from './helpers/trello.ts'
import { act, triggerContext } from './helpers/trello-triggers.ts'

// The two polled Trello triggers, reading the sandbox over real HTTP through the integration's client.
// `now` is given to each poll, so due-date windows are exact without waiting.
let stack: TestStack
let ctx: ToolContext

const trigger = (id: string): AnyTrigger => trello.triggers.find((t) => t.id === id)!
const MINUTE = 60_000

beforeAll(async () => {
  stack = await startTestStack()
  const integration = await connectTrelloWithToken(stack)
  ctx = await triggerContext(stack, integration)
})
afterAll(async () => {
  await stack?.close()
})

describe('Card Due Date Reminder', () => {
  const reminder = trigger('trello.card_due_date_reminder')
  const due = Date.parse('2031-05-01T12:00:00.000Z')
  const iso = (ms: number) => new Date(ms).toISOString()
  let board: { id: string; name: string }
  let list: { id: string; name: string }
  let config: Record<string, unknown>
  const cards: Record<string, { id: string }> = {}
  const poll = (cursor: PollCursor, now: number, cfg = config): Promise<PollResult> =>
    reminder.poll!(ctx, cfg, cursor, now)
  const keys = (result: PollResult) => result.events.map((e) => e.candidate.dedupeKey)

  beforeAll(async () => {
    board = await act(stack, 'ada', 'POST', '/1/boards', { name: 'Deadlines' })
    ;[list] = await act(stack, 'ada', 'GET', `/1/boards/${board.id}/lists`)
    const card = (name: string, extra: Record<string, unknown> = {}) =>
      act(stack, 'ada', 'POST', '/1/cards', { idList: list.id, name, due: iso(due), ...extra })
    cards.due = await card('Ship it')
    cards.archived = await card('Archived one')
    await act(stack, 'ada', 'PUT', `/1/cards/${cards.archived.id}`, { closed: true })
    cards.complete = await card('Already done', { dueComplete: true })
    cards.later = await card('Next month', { due: iso(due + 30 * 24 * 60 * MINUTE) })
    cards.none = await act(stack, 'ada', 'POST', '/1/cards', { idList: list.id, name: 'No due date' })
    const shelved = await act(stack, 'ada', 'POST', '/1/lists', { name: 'Shelved', idBoard: board.id })
    cards.inArchivedList = await act(stack, 'ada', 'POST', '/1/cards', {
      idList: shelved.id,
      name: 'Shelved card',
      due: iso(due),
    })
    await act(stack, 'ada', 'PUT', `/1/lists/${shelved.id}`, { closed: true })
    config = reminder.config.parse({ board_ids: [board.id] }) as Record<string, unknown>
  })

  it('fires once per card and due date, offset_minutes before it, and again when the due date changes', async () => {
    const first = await poll(null, due - 2 * 60 * MINUTE)
    expect(first.events).toEqual([])

    const inWindow = await poll(first.cursor, due - 30 * MINUTE)
    expect(keys(inWindow)).toEqual([`${cards.due!.id}:${iso(due)}`])
    const [fired] = inWindow.events
    expect(fired!.candidate.type).toBe('cardDueSoon')
    expect(fired!.event).toEqual({
      card: {
        id: cards.due!.id,
        name: 'Ship it',
        shortLink: expect.any(String),
        idShort: expect.any(Number),
        due: iso(due),
      },
      list: { id: list.id, name: list.name },
      board: { id: board.id, name: 'Deadlines', shortLink: expect.any(String) },
      due: iso(due),
      remindAt: iso(due - 60 * MINUTE),
    })
    expect(reminder.event.safeParse(fired!.event).success).toBe(true)

    const again = await poll(inWindow.cursor, due - 10 * MINUTE)
    expect(again.events).toEqual([])

    // A new due date is a new reminder.
    const moved = due + 20 * MINUTE
    await act(stack, 'ada', 'PUT', `/1/cards/${cards.due!.id}`, { due: iso(moved) })
    const rescheduled = await poll(again.cursor, due - 10 * MINUTE)
    expect(keys(rescheduled)).toEqual([`${cards.due!.id}:${iso(moved)}`])
    expect((await poll(rescheduled.cursor, due)).events).toEqual([])

    // Past the due date nothing fires again; the cursor forgets the card once it can no longer fire.
    const past = await poll(rescheduled.cursor, moved)
    expect(past.events).toEqual([])
    const forgotten = await poll(past.cursor, moved - 60 * MINUTE + MAX_LATENESS_MS + MINUTE)
    expect(forgotten).toEqual({
      events: [],
      cursor: { fired: {}, polledAt: iso(moved - 60 * MINUTE + MAX_LATENESS_MS + MINUTE) },
    })
  })

  // Issue 22, section 4: a card whose due time passed before the poll was skipped, so one slow or
  // missed poll dropped its reminder without a word.
  it('a reminder whose time fell between two polls fires at the later one, even past its due date, up to a day late', async () => {
    const at = due + 9 * 24 * 60 * MINUTE
    const card = await act(stack, 'ada', 'POST', '/1/cards', {
      idList: list.id,
      name: 'Missed',
      due: iso(at),
    })
    const mine = (result: PollResult) =>
      result.events.filter((e) => (e.event.card as { id: string }).id === card.id)
    // The last poll looked two hours before the due date; the next comes only after it.
    const before = await poll(null, at - 2 * 60 * MINUTE)
    const late = await poll(before.cursor, at + 3 * 60 * MINUTE)
    expect(mine(late).map((e) => e.event.remindAt)).toEqual([iso(at - 60 * MINUTE)])
    expect(mine(await poll(late.cursor, at + 4 * 60 * MINUTE))).toEqual([]) // once
    // Later than a day past its reminder time, it no longer fires.
    expect(mine(await poll(before.cursor, at - 60 * MINUTE + MAX_LATENESS_MS + MINUTE))).toEqual([])
    // A card made with its due date already past is no reminder.
    const overdue = await act(stack, 'ada', 'POST', '/1/cards', {
      idList: list.id,
      name: 'Old',
      due: iso(at - 5 * 60 * MINUTE),
    })
    const after = await poll(late.cursor, at + 5 * 60 * MINUTE)
    expect(after.events.filter((e) => (e.event.card as { id: string }).id === overdue.id)).toEqual([])
  })

  it('never fires for archived cards, cards in archived lists, completed due dates or cards without one', async () => {
    const seen = new Set<string>()
    let cursor: PollCursor = (await poll(null, due - 2 * 60 * MINUTE)).cursor
    for (const minutes of [59, 30, 1]) {
      const result = await poll(cursor, due - minutes * MINUTE)
      for (const e of result.events) seen.add((e.event.card as { id: string }).id)
      cursor = result.cursor
    }
    for (const name of ['archived', 'complete', 'none', 'later', 'inArchivedList'])
      expect(seen.has(cards[name]!.id), name).toBe(false)
  })

  it('honours offset_minutes, and starts nothing on its first poll even inside the window', async () => {
    const target = await act(stack, 'ada', 'POST', '/1/cards', {
      idList: list.id,
      name: 'Two hours ahead',
      due: iso(due + 5 * 24 * 60 * MINUTE),
    })
    const at = due + 5 * 24 * 60 * MINUTE
    const twoHours = reminder.config.parse({ board_ids: [board.id], offset_minutes: 120 }) as Record<
      string,
      unknown
    >
    const start = await poll(null, at - 3 * 60 * MINUTE, twoHours)
    expect(
      (await poll(start.cursor, at - 100 * MINUTE, twoHours)).events.map(
        (e) => (e.event.card as { id: string }).id,
      ),
    ).toEqual([target.id])
    expect((await poll(start.cursor, at - 100 * MINUTE)).events).toEqual([]) // sixty minutes: not yet
    const lateStart = await poll(null, at - 30 * MINUTE)
    expect(lateStart.events).toEqual([])
    expect((await poll(lateStart.cursor, at - 20 * MINUTE)).events).toEqual([])
    expect(
      reminder.config.safeParse({ board_ids: [board.id], offset_minutes: 0 }).error?.issues[0],
    ).toMatchObject({ path: ['offset_minutes'], message: 'must be at least 1 minute' })
  })
})

describe('New Notification', () => {
  const notifications = trigger('trello.new_notification')
  const all = notifications.config.parse({})
  const mention = (text: string, card: string = TRELLO.cards.api.id) =>
    act(stack, 'grace', 'POST', `/1/cards/${card}/actions/comments`, { text })

  it('sets its cursor on the first poll, then emits each new notification once, oldest first', async () => {
    await mention('@ada before we start')
    const first = await notifications.poll!(ctx, all, null, Date.now())
    expect(first.events).toEqual([])
    expect(first.cursor).toEqual({ lastId: expect.stringMatching(/^[0-9a-f]{24}$/) })

    await mention('@ada one')
    await mention('@ada two')
    await act(stack, 'grace', 'POST', `/1/cards/${TRELLO.cards.docs.id}/idMembers`, {
      value: TRELLO.members.ada.id,
    })
    const second = await notifications.poll!(ctx, all, first.cursor, Date.now())
    expect(second.events.map((e) => e.candidate.type)).toEqual([
      'mentionedOnCard',
      'mentionedOnCard',
      'addedToCard',
    ])
    expect(second.events.map((e) => e.event.text)).toEqual(['@ada one', '@ada two', undefined])
    const [one] = second.events
    expect(one!.candidate).toMatchObject({
      dedupeKey: one!.event.notification && (one!.event.notification as { id: string }).id,
      actorId: TRELLO.members.grace.id,
    })
    expect(one!.event).toMatchObject({
      notification: { type: 'mentionedOnCard', unread: true },
      card: { id: TRELLO.cards.api.id },
      board: { id: TRELLO.board.id },
      member: { id: TRELLO.members.grace.id, username: 'grace' },
    })
    expect(notifications.event.safeParse(one!.event).success).toBe(true)

    const third = await notifications.poll!(ctx, all, second.cursor, Date.now())
    expect(third).toEqual({ events: [], cursor: second.cursor })

    // Filtered by type, from the same starting point.
    const onlyAdded = await notifications.poll!(
      ctx,
      notifications.config.parse({ types: ['addedToCard'] }),
      first.cursor,
      Date.now(),
    )
    expect(onlyAdded.events.map((e) => e.candidate.type)).toEqual(['addedToCard'])
  })

  it("does not lose a notification made in the same instant as the cursor's (ids, not dates)", async () => {
    const control = trelloControl(stack)
    const instant = Date.parse('2031-01-01T00:00:00.000Z')
    try {
      await control.call('POST', '/clock', { now: instant })
      await mention('@ada at the boundary')
      const start = await notifications.poll!(ctx, all, null, instant)
      // The clock is put back to the same instant: the date is the cursor's own or even earlier, which a date cursor would skip.
      await control.call('POST', '/clock', { now: instant })
      await mention('@ada same instant')
      const next = await notifications.poll!(ctx, all, start.cursor, instant)
      expect(next.events.map((e) => e.event.text)).toEqual(['@ada same instant'])
    } finally {
      await control.call('POST', '/clock', { now: Date.now() })
    }
  })
})
