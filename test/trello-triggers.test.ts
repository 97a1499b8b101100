import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppError } from '../src/core/errors.ts'
import { parseDeclaredOrThrow } from '../src/core/validation.ts'
import type { ToolContext } from '../src/core/tools/define.ts'
import type { AnyTrigger, Delivery, EventCandidate } from '../src/core/triggers/define.ts'
import { trello } from '../src/platforms/trello/platform.ts'
import { trelloWebhooks as hooks } from '../src/platforms/trello/webhooks.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'
import { connectTrelloWithToken, TRELLO, trelloControl } from './helpers/trello.ts'
import {
  act,
  deliveriesSince,
  startHookReceiver,
  triggerContext,
  type HookReceiver,
} from './helpers/trello-triggers.ts'

// Trello's instant triggers over real HTTP: a webhook made through the platform's facet, changes made
// on the sandbox (through the product's own steps or as a person in Trello's UI), and each delivery
// verified, parsed and matched against every trigger, as the intake would.
let stack: TestStack
let integration: string
let ctx: ToolContext
let receiver: HookReceiver
let appSecret: string

const BOARD = TRELLO.board.id
const ALWAYS = ['trello.new_board_activity', 'trello.custom_webhook_events']
const trigger = (id: string): AnyTrigger => trello.triggers.find((t) => t.id === id)!
const instant = () => trello.triggers.filter((t) => t.mode === 'instant')
/** Every instant trigger configured for one board, with nothing else set. */
const configFor = (t: AnyTrigger, board = BOARD) =>
  t.config.parse(t.id === 'trello.new_board' ? {} : { board_ids: [board] })

let boardHook: { remoteId: string; callbackUrl: string; path: string }
let lists: { first: { id: string }; second: { id: string } }

async function subscribe(modelKey: string, name: string) {
  const path = `/hooks/${name}`
  const callbackUrl = `${receiver.base}${path}`
  const { remoteId } = await hooks.subscribe!(ctx, {
    modelKey,
    callbackUrl,
    description: `switchyard test ${name}`,
  })
  return { remoteId, callbackUrl, path }
}

/** Runs `change`, then answers the deliveries it caused on a hook, each verified and parsed into its candidate. */
async function delivered(
  hook: { callbackUrl: string; path: string },
  change: () => Promise<unknown>,
): Promise<Array<{ delivery: Delivery; candidate: EventCandidate }>> {
  await deliveriesSince(stack, receiver, receiver.posts.length, hook.path, hook.callbackUrl) // earlier changes' deliveries land first
  const mark = receiver.posts.length
  await change()
  const deliveries = await deliveriesSince(stack, receiver, mark, hook.path, hook.callbackUrl)
  const out = []
  for (const delivery of deliveries) {
    expect(await hooks.verify(delivery, { appSecret })).toBe('valid')
    const candidates = hooks.parse(delivery)
    expect(candidates).toHaveLength(1)
    out.push({ delivery, candidate: candidates[0]! })
  }
  return out
}

/** The ids of the instant triggers that fire for a candidate, each configured for the board alone. */
const firing = (candidate: EventCandidate, board = BOARD) =>
  instant()
    .filter((t) => t.match!(candidate, configFor(t, board)) !== null)
    .map((t) => t.id)
    .sort()
const expected = (...ids: string[]) => [...ids, ...ALWAYS].sort()

const run = async (tool: string, input: Record<string, unknown>) => {
  const res = await client(stack, stack.apiKey).run(tool, integration, input)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.output
}

beforeAll(async () => {
  stack = await startTestStack()
  integration = await connectTrelloWithToken(stack)
  ctx = await triggerContext(stack, integration)
  // The sandbox's own app signs deliveries; the deployment knows its secret as its OAuth client's.
  appSecret = stack.services.runtimes.get('trello')!.client.clientSecret
  receiver = await startHookReceiver()
  boardHook = await subscribe(BOARD, 'roadmap')
  const suffix = Math.random().toString(36).slice(2, 8)
  lists = {
    first: await act(stack, 'ada', 'POST', '/1/lists', { name: `first ${suffix}`, idBoard: BOARD }),
    second: await act(stack, 'ada', 'POST', '/1/lists', { name: `second ${suffix}`, idBoard: BOARD }),
  }
})
afterAll(async () => {
  await receiver?.close()
  await stack?.close()
})

describe('the platform declares its triggers', () => {
  it('has the fifteen, with samples that fit their event schemas and human config errors', () => {
    expect(trello.triggers.map((t) => t.id)).toEqual([
      'trello.new_card',
      'trello.card_updated',
      'trello.card_moved',
      'trello.card_archived',
      'trello.card_due_date_reminder',
      'trello.new_comment_added_to_card',
      'trello.new_member_on_card',
      'trello.new_label_created',
      'trello.new_label_added_to_card',
      'trello.new_checklist',
      'trello.new_board',
      'trello.new_board_activity',
      'trello.new_notification',
      'trello.new_attachment',
      'trello.custom_webhook_events',
    ])
    expect(trello.triggers.filter((t) => t.mode === 'polled').map((t) => t.id)).toEqual([
      'trello.card_due_date_reminder',
      'trello.new_notification',
    ])
    for (const t of trello.triggers) {
      expect(t.event.safeParse(t.sample).success, t.id).toBe(true)
      if (t.mode === 'instant') expect(t.match && t.models, t.id).toBeTruthy()
      else expect(t.poll, t.id).toBeTruthy()
    }
    const noBoards = trigger('trello.new_card').config.safeParse({ board_ids: [] })
    expect(noBoards.error?.issues[0]).toMatchObject({
      path: ['board_ids'],
      message: 'choose at least one board',
    })
    const badId = trigger('trello.card_moved').config.safeParse({ board_ids: ['nope'] })
    expect(badId.error?.issues[0]?.message).toMatch(/board id/)
    expect(() =>
      parseDeclaredOrThrow(trigger('trello.new_card').config, { board_ids: [BOARD], board: BOARD }, 'config'),
    ).toThrow('config.board: is not a known field; the fields are board_ids')
    const badKind = trigger('trello.custom_webhook_events').config.safeParse({
      board_ids: [BOARD],
      event_types: ['explode'],
    })
    expect(badKind.error?.issues[0]?.message).toMatch(/create, update, delete/)
    expect(trigger('trello.card_due_date_reminder').config.parse({ board_ids: [BOARD] })).toEqual({
      board_ids: [BOARD],
      offset_minutes: 60,
    })
    expect(trigger('trello.new_card').models!({ board_ids: [BOARD, BOARD] })).toEqual([BOARD])
    expect(trigger('trello.new_board').models!({})).toEqual(['me'])
  })
})

describe('instant triggers on a board webhook', () => {
  let card: { id: string; name: string }

  it("a new card (made by the product's own step) fires New Card, filtered by list", async () => {
    const [one, ...rest] = await delivered(boardHook, async () => {
      card = await run('trello.create_card', { list_id: lists.first.id, name: 'Trigger me' })
    })
    expect(rest).toEqual([])
    expect(one!.candidate).toMatchObject({
      type: 'createCard',
      actorId: TRELLO.members.ada.id,
      dedupeKey: expect.stringMatching(/^[0-9a-f]{24}$/),
    })
    expect(firing(one!.candidate)).toEqual(expected('trello.new_card'))
    const event = trigger('trello.new_card').match!(one!.candidate, configFor(trigger('trello.new_card')))
    expect(event).toEqual({
      action: { id: one!.candidate.dedupeKey, type: 'createCard', date: expect.any(String) },
      board: { id: BOARD, name: 'Roadmap', shortLink: TRELLO.board.shortLink },
      list: { id: lists.first.id, name: expect.stringMatching(/^first/) },
      card: { id: card.id, name: 'Trigger me', shortLink: expect.any(String), idShort: expect.any(Number) },
      member: { id: TRELLO.members.ada.id, username: 'ada', fullName: 'Ada Lovelace' },
    })
    expect(trigger('trello.new_card').event.safeParse(event).success).toBe(true)
    // Configured for another list, or another board, it stays quiet.
    const newCard = trigger('trello.new_card')
    expect(
      newCard.match!(
        one!.candidate,
        newCard.config.parse({ board_ids: [BOARD], list_ids: [lists.second.id] }),
      ),
    ).toBeNull()
    expect(
      newCard.match!(
        one!.candidate,
        newCard.config.parse({ board_ids: [BOARD], list_ids: [lists.first.id] }),
      ),
    ).not.toBeNull()
    expect(firing(one!.candidate, '5f2b8c0e9d1a4b3c2d1e0f9a')).toEqual([])
  })

  it('a rename fires only Card Updated', async () => {
    const [one] = await delivered(boardHook, () =>
      act(stack, 'grace', 'PUT', `/1/cards/${card.id}`, { name: 'Trigger me, renamed' }),
    )
    expect(firing(one!.candidate)).toEqual(expected('trello.card_updated'))
    const event = trigger('trello.card_updated').match!(
      one!.candidate,
      configFor(trigger('trello.card_updated')),
    )
    expect(event).toMatchObject({
      changed: ['name'],
      old: { name: 'Trigger me' },
      card: { name: 'Trigger me, renamed' },
      member: { username: 'grace' },
    })
    expect(one!.candidate.actorId).toBe(TRELLO.members.grace.id)
  })

  it('a move fires Card Updated and Card Moved, with the lists before and after', async () => {
    const [one] = await delivered(boardHook, () =>
      act(stack, 'ada', 'PUT', `/1/cards/${card.id}`, { idList: lists.second.id }),
    )
    expect(firing(one!.candidate)).toEqual(expected('trello.card_moved', 'trello.card_updated'))
    const moved = trigger('trello.card_moved')
    expect(moved.match!(one!.candidate, configFor(moved))).toMatchObject({
      listBefore: { id: lists.first.id },
      listAfter: { id: lists.second.id },
      list: { id: lists.second.id },
    })
    expect(
      moved.match!(one!.candidate, moved.config.parse({ board_ids: [BOARD], list_ids: [lists.first.id] })),
    ).toBeNull()
    const custom = trigger('trello.custom_webhook_events')
    const only = (cfg: Record<string, unknown>) =>
      custom.match!(one!.candidate, custom.config.parse({ board_ids: [BOARD], ...cfg }))
    expect(only({ event_types: ['move'] })).toMatchObject({ kinds: ['update', 'move'] })
    expect(only({ event_types: ['create', 'delete'] })).toBeNull()
    expect(only({ list_ids: [lists.first.id] })).not.toBeNull() // moved out of it
    expect(only({ list_ids: [TRELLO.lists.done.id] })).toBeNull()
    expect(only({ card_ids: [card.id], event_types: ['update'], list_ids: [lists.second.id] })).not.toBeNull()
    expect(only({ card_ids: [TRELLO.cards.api.id] })).toBeNull()
  })

  it('a comment fires New Comment Added to Card with its text', async () => {
    const [one] = await delivered(boardHook, () =>
      act(stack, 'grace', 'POST', `/1/cards/${card.id}/actions/comments`, { text: 'Looks right to me' }),
    )
    expect(firing(one!.candidate)).toEqual(expected('trello.new_comment_added_to_card'))
    expect(
      trigger('trello.new_comment_added_to_card').match!(
        one!.candidate,
        configFor(trigger('trello.new_comment_added_to_card')),
      ),
    ).toMatchObject({
      comment: { id: one!.candidate.dedupeKey, text: 'Looks right to me' },
      card: { id: card.id },
    })
  })

  it('a member put on the card fires New Member on Card and Card Updated', async () => {
    const [one] = await delivered(boardHook, () =>
      act(stack, 'ada', 'POST', `/1/cards/${card.id}/idMembers`, { value: TRELLO.members.grace.id }),
    )
    expect(firing(one!.candidate)).toEqual(expected('trello.new_member_on_card', 'trello.card_updated'))
    expect(
      trigger('trello.new_member_on_card').match!(
        one!.candidate,
        configFor(trigger('trello.new_member_on_card')),
      ),
    ).toMatchObject({
      addedMember: { id: TRELLO.members.grace.id, name: 'Grace Hopper' },
      member: { username: 'ada' },
    })
  })

  let label: { id: string }
  it('a new label fires New Label Created', async () => {
    const [one] = await delivered(boardHook, async () => {
      label = await act(stack, 'ada', 'POST', '/1/labels', {
        name: 'Urgent',
        color: 'orange',
        idBoard: BOARD,
      })
    })
    expect(firing(one!.candidate)).toEqual(expected('trello.new_label_created'))
    expect(
      trigger('trello.new_label_created').match!(
        one!.candidate,
        configFor(trigger('trello.new_label_created')),
      ),
    ).toMatchObject({ label: { id: label.id, name: 'Urgent', color: 'orange' } })
  })

  it('a label on the card fires New Label Added To Card, and Card Updated once through its updateCard', async () => {
    const both = await delivered(boardHook, () =>
      act(stack, 'ada', 'POST', `/1/cards/${card.id}/idLabels`, { value: label.id }),
    )
    expect(both.map((d) => d.candidate.type)).toEqual(['addLabelToCard', 'updateCard'])
    expect(firing(both[0]!.candidate)).toEqual(expected('trello.new_label_added_to_card'))
    expect(firing(both[1]!.candidate)).toEqual(expected('trello.card_updated'))
    expect(
      trigger('trello.new_label_added_to_card').match!(
        both[0]!.candidate,
        configFor(trigger('trello.new_label_added_to_card')),
      ),
    ).toMatchObject({ label: { id: label.id, name: 'Urgent', color: 'orange' }, card: { id: card.id } })
  })

  it('a checklist fires New Checklist and Card Updated', async () => {
    const [one] = await delivered(boardHook, () =>
      run('trello.add_checklist', { card_id: card.id, name: 'Steps' }),
    )
    expect(firing(one!.candidate)).toEqual(expected('trello.new_checklist', 'trello.card_updated'))
    expect(
      trigger('trello.new_checklist').match!(one!.candidate, configFor(trigger('trello.new_checklist'))),
    ).toMatchObject({ checklist: { name: 'Steps' } })
  })

  it('an attachment fires New Attachment and Card Updated', async () => {
    const [one] = await delivered(boardHook, () =>
      act(stack, 'ada', 'POST', `/1/cards/${card.id}/attachments`, {
        url: 'https://example.com/spec.pdf',
        name: 'spec.pdf',
      }),
    )
    expect(firing(one!.candidate)).toEqual(expected('trello.new_attachment', 'trello.card_updated'))
    expect(
      trigger('trello.new_attachment').match!(one!.candidate, configFor(trigger('trello.new_attachment'))),
    ).toMatchObject({ attachment: { name: 'spec.pdf', url: 'https://example.com/spec.pdf' } })
  })

  it('archiving fires Card Archived and Card Updated; sending it back fires only Card Updated', async () => {
    const [archived] = await delivered(boardHook, () =>
      act(stack, 'ada', 'PUT', `/1/cards/${card.id}`, { closed: true }),
    )
    expect(firing(archived!.candidate)).toEqual(expected('trello.card_archived', 'trello.card_updated'))
    const [back] = await delivered(boardHook, () =>
      act(stack, 'ada', 'PUT', `/1/cards/${card.id}`, { closed: false }),
    )
    expect(firing(back!.candidate)).toEqual(expected('trello.card_updated'))
    const custom = trigger('trello.custom_webhook_events')
    expect(
      custom.match!(
        archived!.candidate,
        custom.config.parse({ board_ids: [BOARD], event_types: ['archive'] }),
      ),
    ).not.toBeNull()
    expect(
      custom.match!(back!.candidate, custom.config.parse({ board_ids: [BOARD], event_types: ['archive'] })),
    ).toBeNull()
  })

  it('New Board Activity watches several chosen activity types together', async () => {
    const [comment] = await delivered(boardHook, () =>
      act(stack, 'ada', 'POST', `/1/cards/${card.id}/actions/comments`, { text: 'again' }),
    )
    const activity = trigger('trello.new_board_activity')
    const watching = activity.config.parse({
      board_ids: [BOARD],
      activity_types: ['commentCard', 'createCard'],
    })
    expect(activity.match!(comment!.candidate, watching)).toMatchObject({
      action: { type: 'commentCard' },
      data: { text: 'again' },
    })
    expect(
      activity.match!(
        comment!.candidate,
        activity.config.parse({ board_ids: [BOARD], activity_types: ['createList'] }),
      ),
    ).toBeNull()
    expect(
      activity.config.safeParse({ board_ids: [BOARD], activity_types: ['nonsense'] }).error?.issues[0]
        ?.message,
    ).toMatch(/Trello action type/)
  })

  it("a card on another board reaches only that board's webhook, and triggers configured for this board ignore it", async () => {
    const other = await act(stack, 'ada', 'POST', '/1/boards', { name: 'Elsewhere', defaultLists: true })
    const otherHook = await subscribe(other.id, 'elsewhere')
    const otherLists = await act(stack, 'ada', 'GET', `/1/boards/${other.id}/lists`)
    const mark = receiver.posts.length
    const [one] = await delivered(otherHook, () =>
      act(stack, 'ada', 'POST', '/1/cards', { idList: otherLists[0].id, name: 'Not on Roadmap' }),
    )
    expect(receiver.posts.slice(mark).filter((p) => p.path === boardHook.path)).toEqual([])
    expect(firing(one!.candidate)).toEqual([])
    expect(firing(one!.candidate, other.id)).toEqual(expected('trello.new_card'))
    await hooks.unsubscribe!(ctx, otherHook.remoteId)
  })

  it("recent() reads the board's actions through the same match, newest first, webhook-only types included", async () => {
    const moves = await trigger('trello.card_moved').recent!(ctx, configFor(trigger('trello.card_moved')))
    expect(moves[0]).toMatchObject({ card: { id: card.id }, listAfter: { id: lists.second.id } })
    const updates = await trigger('trello.card_updated').recent!(
      ctx,
      configFor(trigger('trello.card_updated')),
    )
    const dates = updates.map((e) => (e.action as { date: string }).date)
    expect(dates).toEqual([...dates].sort().reverse())
    expect(updates.length).toBeGreaterThanOrEqual(5)
    const labels = await trigger('trello.new_label_added_to_card').recent!(
      ctx,
      configFor(trigger('trello.new_label_added_to_card')),
    )
    expect(labels[0]).toMatchObject({ label: { id: label.id }, card: { id: card.id } })
    const comments = await trigger('trello.new_comment_added_to_card').recent!(
      ctx,
      configFor(trigger('trello.new_comment_added_to_card')),
    )
    expect(comments.map((e) => (e.comment as { text: string }).text).slice(0, 2)).toEqual([
      'again',
      'Looks right to me',
    ])
  })
})

describe("New Board on the member's webhook", () => {
  it('subscribes the connected member and fires when they create a board', async () => {
    const memberHook = await subscribe('me', 'member')
    const webhooks = (await trelloControl(stack).call('GET', '/webhooks')).body
    const made = (Array.isArray(webhooks) ? webhooks : webhooks.webhooks).find(
      (w: { id: string }) => w.id === memberHook.remoteId,
    )
    expect(made).toMatchObject({ idModel: TRELLO.members.ada.id })
    let board: { id: string } | undefined
    const received = await delivered(memberHook, async () => {
      board = await act(stack, 'ada', 'POST', '/1/boards', { name: 'Q3 Launch' })
    })
    const created = received.find((d) => d.candidate.type === 'createBoard')!
    expect(firing(created.candidate)).toEqual(['trello.new_board'])
    expect(trigger('trello.new_board').match!(created.candidate, {})).toMatchObject({
      board: { id: board!.id, name: 'Q3 Launch' },
      member: { username: 'ada' },
      action: { type: 'createBoard' },
    })
    const recent = await trigger('trello.new_board').recent!(ctx, {})
    expect(recent.map((e) => (e.board as { name: string }).name).slice(0, 2)).toEqual([
      'Q3 Launch',
      'Elsewhere',
    ])
    // Other things the member does reach the member's webhook too; New Board ignores them.
    const [comment] = await delivered(memberHook, () =>
      act(stack, 'ada', 'POST', `/1/cards/${TRELLO.cards.api.id}/actions/comments`, { text: 'hi' }),
    )
    expect(trigger('trello.new_board').match!(comment!.candidate, {})).toBeNull()
    await hooks.unsubscribe!(ctx, memberHook.remoteId)
  })
})

describe('the webhook lifecycle', () => {
  it('adopts the webhook Trello says already exists, and exists() follows it until unsubscribe (twice)', async () => {
    const path = '/hooks/adopt'
    const callbackUrl = `${receiver.base}${path}`
    const first = await hooks.subscribe!(ctx, { modelKey: BOARD, callbackUrl, description: 'adopt me' })
    const again = await hooks.subscribe!(ctx, { modelKey: BOARD, callbackUrl, description: 'adopt me' })
    expect(again.remoteId).toBe(first.remoteId)
    expect(await hooks.exists!(ctx, first.remoteId)).toBe(true)
    await hooks.unsubscribe!(ctx, first.remoteId)
    expect(await hooks.exists!(ctx, first.remoteId)).toBe(false)
    await expect(hooks.unsubscribe!(ctx, first.remoteId)).resolves.toBeUndefined()
    // Gone, it can be made again.
    const third = await hooks.subscribe!(ctx, { modelKey: BOARD, callbackUrl, description: 'adopt me' })
    expect(third.remoteId).not.toBe(first.remoteId)
    await hooks.unsubscribe!(ctx, third.remoteId)
  })

  it("refuses a callback that does not answer Trello's HEAD check, in Trello's words", async () => {
    const err = await hooks.subscribe!(ctx, {
      modelKey: BOARD,
      callbackUrl: 'http://127.0.0.1:9/nothing',
      description: 'x',
    }).catch((e) => e)
    expect(err).toBeInstanceOf(AppError)
    expect(err.message).toMatch(/did not return 200/)
  })

  it('confirm() answers a delivered action as Trello has it, and nothing for a forged one', async () => {
    const [one] = await delivered(boardHook, () =>
      act(stack, 'grace', 'POST', `/1/cards/${TRELLO.cards.api.id}/actions/comments`, { text: 'confirm me' }),
    )
    const raw = one!.candidate.raw as { action: Record<string, any> }
    const confirmed = await hooks.confirm!(ctx, one!.candidate)
    expect(confirmed).toMatchObject({ dedupeKey: raw.action.id, type: 'commentCard' })
    expect((confirmed!.raw as { action: Record<string, any> }).action.data.text).toBe('confirm me')
    const forged = (action: Record<string, unknown>): EventCandidate => ({
      ...one!.candidate,
      raw: { ...raw, action: { ...raw.action, ...action } },
    })
    expect(await hooks.confirm!(ctx, forged({ type: 'deleteCard' }))).toBeNull()
    expect(await hooks.confirm!(ctx, forged({ idMemberCreator: TRELLO.members.ada.id }))).toBeNull()
    expect(await hooks.confirm!(ctx, forged({ id: '0'.repeat(24) }))).toBeNull()
    // A real id with forged content: the answer is what Trello holds, not what was delivered.
    const rewritten = await hooks.confirm!(
      ctx,
      forged({ data: { ...raw.action.data, text: 'forged', card: { id: TRELLO.cards.ship.id } } }),
    )
    const real = (rewritten!.raw as { action: Record<string, any> }).action
    expect(real.data.text).toBe('confirm me')
    expect(real.data.card.id).toBe(TRELLO.cards.api.id)
  })
})

describe('hostile deliveries', () => {
  let real: Delivery
  beforeAll(async () => {
    const [one] = await delivered(boardHook, () =>
      act(stack, 'ada', 'POST', `/1/cards/${TRELLO.cards.api.id}/actions/comments`, { text: 'sign me' }),
    )
    real = one!.delivery
  })
  const sign = (body: Buffer, url: string) =>
    createHmac('sha1', appSecret)
      .update(Buffer.concat([body, Buffer.from(url)]))
      .digest('base64')
  const withHeader = (d: Delivery, value: string | undefined): Delivery => ({
    ...d,
    headers: { ...d.headers, 'x-trello-webhook': value },
  })

  it('verify() refuses each forgery and accepts the real one', async () => {
    const oneByteOff = Buffer.from(real.rawBody)
    oneByteOff[oneByteOff.length - 3] = oneByteOff[oneByteOff.length - 3]! ^ 1
    const header = real.headers['x-trello-webhook']!
    const cases: Array<[string, Delivery, string | undefined, string]> = [
      ['the real delivery', real, appSecret, 'valid'],
      ['no secret known', real, undefined, 'unverifiable'],
      ['missing header', withHeader(real, undefined), appSecret, 'invalid'],
      ['empty header', withHeader(real, ''), appSecret, 'invalid'],
      ['not base64', withHeader(real, '!!!not-base64!!!'), appSecret, 'invalid'],
      ['truncated signature', withHeader(real, header.slice(0, 12)), appSecret, 'invalid'],
      [
        'wrong signature',
        withHeader(real, sign(Buffer.from('other'), real.callbackUrl)),
        appSecret,
        'invalid',
      ],
      [
        'signed by another secret',
        withHeader(
          real,
          createHmac('sha1', 'f'.repeat(64))
            .update(Buffer.concat([real.rawBody, Buffer.from(real.callbackUrl)]))
            .digest('base64'),
        ),
        appSecret,
        'invalid',
      ],
      [
        'signed over a different callback URL',
        withHeader(real, sign(real.rawBody, 'https://attacker.example/hook')),
        appSecret,
        'invalid',
      ],
      [
        'stored callback URL differs from the signed one',
        { ...real, callbackUrl: `${real.callbackUrl}?x=1` },
        appSecret,
        'invalid',
      ],
      ['body modified by one byte', { ...real, rawBody: oneByteOff }, appSecret, 'invalid'],
    ]
    for (const [name, delivery, secret, verdict] of cases) {
      expect(await hooks.verify(delivery, { appSecret: secret }), name).toBe(verdict)
    }
  })

  it('parse() refuses bodies that are not {action, model}, naming the field', () => {
    const bodies: Array<[string, string, string]> = [
      ['not JSON', 'action=createCard', 'body'],
      ['empty', '', 'body'],
      ['JSON without action', '{"model":{"id":"x"}}', 'action'],
      ['action not an object', '{"action":"createCard","model":{}}', 'action'],
      [
        'action without id',
        '{"action":{"type":"createCard","date":"2026-01-01T00:00:00Z","idMemberCreator":"a","data":{}},"model":{}}',
        'action',
      ],
      ['JSON array', '[1,2]', 'action'],
      ['JSON null', 'null', 'action'],
    ]
    for (const [name, body, field] of bodies) {
      const signed = withHeader(
        { ...real, rawBody: Buffer.from(body) },
        sign(Buffer.from(body), real.callbackUrl),
      )
      let caught: unknown
      try {
        hooks.parse(signed)
      } catch (err) {
        caught = err
      }
      expect(caught, name).toBeInstanceOf(AppError)
      expect((caught as AppError).code, name).toBe('invalid_input')
      expect((caught as AppError).extras.errors?.[0]?.field, name).toBe(field)
    }
    // A correctly signed body in the right shape parses.
    expect(hooks.parse(real)[0]).toMatchObject({ type: 'commentCard', actorId: TRELLO.members.ada.id })
  })
})
