import { createTrelloClient } from 'trello.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADA, KEY, startTestSandbox, type TestSandbox } from '../src/sandboxes/trello/test-support.ts'
import { SEED } from '../src/sandboxes/trello/seed.ts'
import { z } from 'zod'
import {
  Board,
  BoardWithLists,
  CardWithRelations,
  CommentAction,
  Member,
} from './helpers/trello-js-schemas.ts'

// The sandbox promises that real Trello clients work against it unchanged, apart from the base URL.
// trello.js validates every response against zod schemas generated from Trello's swagger, so a
// schema failure here means the sandbox's shape differs from what real Trello sends.
let sandbox: TestSandbox
let trello: ReturnType<typeof createTrelloClient>
let unparsed: ReturnType<typeof createTrelloClient>

beforeAll(async () => {
  sandbox = await startTestSandbox()
  const token = await sandbox.token('ada')
  // Only the host differs from a production setup (default: https://api.trello.com/1).
  trello = createTrelloClient({ apiKey: KEY, apiToken: token, host: `${sandbox.url}/1` })
  unparsed = createTrelloClient({ apiKey: KEY, apiToken: token, host: `${sandbox.url}/1`, skipParsing: true })
})
afterAll(async () => {
  await sandbox?.close()
})

// Where trello.js 2.2.0's schema is stricter than real Trello, a call goes through `unparsed`
// (`skipParsing` is per client) and is checked against the library's own schema with only the
// offending fields widened (test/helpers/trello-js-schemas.ts says which and why).
const MemberWithoutAvatar = Member
const PersonalBoards = z.array(Board)

const { board, lists, labels, cards, members } = SEED

describe('trello.js against the Trello sandbox', () => {
  it('reads the current member and their boards', async () => {
    const me = MemberWithoutAvatar.parse(await unparsed.members.getMember({ id: 'me' }))
    expect(me).toMatchObject({ id: ADA.id, username: ADA.username, fullName: ADA.fullName })

    const boards = PersonalBoards.parse(await unparsed.members.getMemberBoards({ id: 'me' }))
    const roadmap = boards.find((b) => b.id === board.id)
    expect(roadmap).toMatchObject({ name: board.name, closed: false, shortLink: board.shortLink })
  })

  it("lists the board's lists in order", async () => {
    const boardLists = await trello.boards.getBoardLists({ id: board.id })
    expect(boardLists.map((l) => l.id)).toEqual([lists.todo.id, lists.doing.id, lists.done.id])
    expect(boardLists[0]).toMatchObject({
      name: lists.todo.name,
      idBoard: board.id,
      closed: false,
      pos: lists.todo.pos,
    })
  })

  it('creates, reads, moves, comments on and archives a card', async () => {
    const created = await trello.cards.createCard({
      idList: lists.todo.id,
      name: 'From trello.js',
      desc: 'Made by a real client',
      due: '2025-03-01T17:00:00+02:00',
      idLabels: [labels.bug.id, labels.docs.id],
    })
    expect(created.id).toMatch(/^[0-9a-f]{24}$/)
    expect(created).toMatchObject({
      name: 'From trello.js',
      desc: 'Made by a real client',
      idList: lists.todo.id,
      idBoard: board.id,
      closed: false,
    })
    expect(created.idLabels).toEqual([labels.bug.id, labels.docs.id])
    // The schema coerces ISO dates into Date objects.
    expect(created.due).toEqual(new Date('2025-03-01T15:00:00.000Z'))

    const fetched = await trello.cards.getCard({ id: created.id })
    expect(fetched).toMatchObject({ id: created.id, name: 'From trello.js', shortLink: created.shortLink })
    expect(fetched.due).toEqual(new Date('2025-03-01T15:00:00.000Z'))

    const moved = await trello.cards.updateCard({ id: created.id, idList: lists.doing.id })
    expect(moved).toMatchObject({ id: created.id, idList: lists.doing.id })
    const doingCards = await trello.lists.getListCards({ id: lists.doing.id })
    expect(doingCards.map((c) => c.id)).toContain(created.id)
    const todoCards = await trello.lists.getListCards({ id: lists.todo.id })
    expect(todoCards.map((c) => c.id)).not.toContain(created.id)

    const comment = CommentAction.parse(
      await unparsed.cards.createCardComment({ id: created.id, text: 'Commented through trello.js' }),
    )
    expect(comment).toMatchObject({
      type: 'commentCard',
      idMemberCreator: ADA.id,
      data: { text: 'Commented through trello.js' },
    })
    expect(comment.data.card).toMatchObject({ id: created.id })
    expect(comment.date).toBeInstanceOf(Date)

    const archived = await trello.cards.updateCard({ id: created.id, closed: true })
    expect(archived).toMatchObject({ id: created.id, closed: true })
    const afterArchive = await trello.lists.getListCards({ id: lists.doing.id })
    expect(afterArchive.map((c) => c.id)).not.toContain(created.id)
  })

  it("gets a list's seeded cards", async () => {
    const todo = await trello.lists.getListCards({ id: lists.todo.id })
    expect(todo.slice(0, 2).map((c) => c.id)).toEqual([cards.docs.id, cards.login.id])
    expect(todo[1]).toMatchObject({
      name: cards.login.name,
      idLabels: [labels.bug.id],
      idList: lists.todo.id,
    })
  })

  it('creates a checklist and adds a check item with a due date', async () => {
    const card = await trello.cards.createCard({ idList: lists.todo.id, name: 'Has a checklist' })
    const checklist = await trello.checklists.createChecklist({ idCard: card.id, name: 'Steps' })
    expect(checklist).toMatchObject({ name: 'Steps', idCard: card.id, idBoard: board.id, checkItems: [] })

    const item = await trello.checklists.createChecklistItem({
      id: checklist.id,
      name: 'First step',
      due: '2025-04-01T09:30:00.000Z',
    })
    expect(item).toMatchObject({ name: 'First step', idChecklist: checklist.id, state: 'incomplete' })
    expect(item.due).toEqual(new Date('2025-04-01T09:30:00.000Z'))

    const reread = await trello.checklists.getChecklist({ id: checklist.id })
    expect(reread.checkItems?.map((i) => i.id)).toEqual([item.id])
  })

  // Every endpoint of the product's table (test/contracts/trello.contract.test.ts) through trello.js,
  // with the parameters the steps send, reading each field a step's user reads. The OAuth 1.0a
  // endpoints are the exception: trello.js has no calls for them, so the contract test alone drives them.
  describe('every endpoint the product uses', () => {
    const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

    it('members/me with fields=id,username,fullName, as identify asks', async () => {
      const me = MemberWithoutAvatar.parse(
        await unparsed.members.getMember({ id: 'me', fields: 'id,username,fullName' }),
      )
      expect(me).toEqual({ id: ADA.id, username: ADA.username, fullName: ADA.fullName })
    })

    it('members/me/boards with open lists nested, as Get Boards asks', async () => {
      const boards = z
        .array(BoardWithLists)
        .parse(await unparsed.members.getMemberBoards({ id: 'me', filter: 'open', lists: 'open' }))
      const roadmap = boards.find((b) => b.id === board.id)!
      expect(roadmap).toMatchObject({
        name: board.name,
        closed: false,
        shortLink: board.shortLink,
        desc: expect.any(String),
      })
      expect(roadmap.url).toMatch(/^https?:\/\//)
      expect(roadmap.shortUrl).toMatch(/^https?:\/\//)
      expect(roadmap.lists.map((l) => [l.id, l.name, l.idBoard, l.closed])).toEqual(
        [lists.todo, lists.doing, lists.done].map((l) => [l.id, l.name, board.id, false]),
      )
      expect(roadmap.lists.map((l) => l.pos)).toEqual([lists.todo.pos, lists.doing.pos, lists.done.pos])
      expect(boards.every((b) => !b.closed)).toBe(true)
    })

    it('a card with its checklists, members, list and board nested, as Get Card asks', async () => {
      const created = await trello.cards.createCard({
        idList: lists.todo.id,
        name: 'Nested',
        desc: 'With everything',
        due: '2025-05-01T08:00:00.000Z',
        idLabels: [labels.bug.id],
      })
      await trello.cards.updateCard({ id: created.id, idMembers: members.ada.id })
      const checklist = await trello.checklists.createChecklist({ idCard: created.id, name: 'Steps' })
      const item = await trello.checklists.createChecklistItem({
        id: checklist.id,
        name: 'One',
        due: '2025-04-01T09:30:00.000Z',
      })

      const raw = await unparsed.cards.getCard({
        id: created.id,
        checklists: 'all',
        members: true,
        memberFields: 'fullName,username',
        list: true,
        board: true,
        boardFields: 'name',
      })
      const card = CardWithRelations.parse(raw)
      expect(card).toMatchObject({
        id: created.id,
        name: 'Nested',
        desc: 'With everything',
        idList: lists.todo.id,
        idBoard: board.id,
        closed: false,
        dueComplete: false,
      })
      expect(card.due).toEqual(new Date('2025-05-01T08:00:00.000Z'))
      expect(card.labels?.map((l) => [l.id, l.name, l.color])).toEqual([
        [labels.bug.id, labels.bug.name, labels.bug.color],
      ])
      expect(card.idMembers).toEqual([members.ada.id])
      expect(card.members.map((m) => [m.id, m.fullName, m.username])).toEqual([
        [members.ada.id, members.ada.fullName, members.ada.username],
      ])
      expect(
        card.checklists.map((c) => [c.id, c.name, c.checkItems?.map((i) => [i.id, i.name, i.state])]),
      ).toEqual([[checklist.id, 'Steps', [[item.id, 'One', 'incomplete']]]])
      expect(card.list).toMatchObject({ id: lists.todo.id, name: lists.todo.name })
      expect(card.board).toMatchObject({ id: board.id, name: board.name })
      expect(card.url).toMatch(new RegExp(`/c/${card.shortLink}/`))
      expect(card.shortUrl).toMatch(new RegExp(`/c/${card.shortLink}$`))
      expect(raw.dateLastActivity).toMatch(ISO_MS)
    })

    it("Update Card's every change in one call: name, desc, due, dueComplete, labels, members, list, position, archive", async () => {
      const created = await trello.cards.createCard({
        idList: lists.todo.id,
        name: 'Before',
        due: '2025-03-01T17:00:00.000Z',
      })
      const changed = await trello.cards.updateCard({
        id: created.id,
        name: 'After',
        desc: 'Changed',
        dueComplete: true,
        idLabels: `${labels.bug.id},${labels.docs.id}`,
        idMembers: members.ada.id,
        idList: lists.doing.id,
        idBoard: board.id,
        pos: 'top',
      })
      expect(changed).toMatchObject({
        id: created.id,
        name: 'After',
        desc: 'Changed',
        dueComplete: true,
        idList: lists.doing.id,
        idBoard: board.id,
        closed: false,
      })
      expect(changed.due).toEqual(new Date('2025-03-01T17:00:00.000Z'))
      expect(changed.idLabels).toEqual([labels.bug.id, labels.docs.id])
      expect(changed.idMembers).toEqual([members.ada.id])
      const doing = await trello.lists.getListCards({ id: lists.doing.id })
      expect(doing[0]?.id).toBe(created.id)

      // trello.js leaves null parameters out of the query, so its users clear a due date with an empty
      // string (the product sends null in a JSON body; the contract test covers that road).
      const cleared = await trello.cards.updateCard({ id: created.id, due: '', closed: true })
      expect(cleared).toMatchObject({ id: created.id, due: null, closed: true })
    })

    it('Create List answers the list with its board and position', async () => {
      const list = await trello.lists.createList({ name: 'From trello.js', idBoard: board.id, pos: 'bottom' })
      expect(list).toMatchObject({ name: 'From trello.js', idBoard: board.id, closed: false })
      expect(list.id).toMatch(/^[0-9a-f]{24}$/)
      expect(list.pos).toBeGreaterThan(lists.done.pos)
    })

    it('a comment answers the commentCard action with its creator, text, card, board and list', async () => {
      const card = await trello.cards.createCard({ idList: lists.todo.id, name: 'To comment' })
      const comment = CommentAction.parse(
        await unparsed.cards.createCardComment({ id: card.id, text: 'Hello @grace' }),
      )
      expect(comment).toMatchObject({
        type: 'commentCard',
        idMemberCreator: ADA.id,
        data: { text: 'Hello @grace' },
      })
      expect(comment.data.card).toMatchObject({ id: card.id, name: 'To comment' })
      expect(comment.data.board).toMatchObject({ id: board.id, name: board.name })
      expect(comment.data.list).toMatchObject({ id: lists.todo.id, name: lists.todo.name })
      expect(comment.memberCreator).toMatchObject({
        id: ADA.id,
        username: ADA.username,
        fullName: ADA.fullName,
      })
      expect(comment.id).toMatch(/^[0-9a-f]{24}$/)
    })

    it('Add Checklist and Create a Checklist Item: position, checked state and due date read back', async () => {
      const card = await trello.cards.createCard({ idList: lists.todo.id, name: 'Checklists' })
      const first = await trello.checklists.createChecklist({ idCard: card.id, name: 'First', pos: 'bottom' })
      const second = await trello.checklists.createChecklist({ idCard: card.id, name: 'Second', pos: 'top' })
      // Positions come back as numbers, whatever was asked ("top", "bottom").
      expect([typeof first.pos, typeof second.pos]).toEqual(['number', 'number'])
      expect(second.pos as number).toBeLessThan(first.pos as number)
      expect(first).toMatchObject({ idCard: card.id, idBoard: board.id, checkItems: [] })

      const done = await trello.checklists.createChecklistItem({
        id: first.id,
        name: 'Done already',
        pos: 'bottom',
        checked: true,
      })
      const due = await trello.checklists.createChecklistItem({
        id: first.id,
        name: 'Due',
        pos: 'top',
        due: '2025-06-01T12:00:00.000Z',
      })
      expect(done).toMatchObject({ name: 'Done already', idChecklist: first.id, state: 'complete' })
      expect(done.due ?? null).toBeNull()
      expect(due).toMatchObject({ name: 'Due', idChecklist: first.id, state: 'incomplete' })
      expect(due.due).toEqual(new Date('2025-06-01T12:00:00.000Z'))
      expect([typeof due.pos, typeof done.pos]).toEqual(['number', 'number'])
      expect(due.pos as number).toBeLessThan(done.pos as number)
      const reread = await trello.checklists.getChecklist({ id: first.id })
      expect(reread.checkItems?.map((i) => i.name)).toEqual(['Due', 'Done already'])
    })

    it('Get List Cards gives every card in list order, each with its fields', async () => {
      const listCards = await trello.lists.getListCards({ id: lists.todo.id })
      expect(listCards.length).toBeGreaterThan(1)
      const positions = listCards.map((c) => c.pos!)
      expect(positions).toEqual([...positions].sort((a, b) => a - b))
      for (const c of listCards) {
        expect(c).toMatchObject({
          idList: lists.todo.id,
          idBoard: board.id,
          closed: false,
          name: expect.any(String),
          shortLink: expect.any(String),
        })
        expect(c.dateLastActivity).toBeInstanceOf(Date)
      }
    })
  })

  it('raises an error carrying status 404 for a missing card', async () => {
    // trello.js has no error class: it throws `Request failed: <status> <statusText> - <body>`.
    const missing = trello.cards.getCard({ id: '0'.repeat(24) })
    await expect(missing).rejects.toThrow('Request failed: 404 Not Found - Could not find the card')
  })
})
