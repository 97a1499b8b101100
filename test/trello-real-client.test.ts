import { createTrelloClient } from 'trello.js'
import { ActionSchema, BoardSchema, MemberSchema } from 'trello.js/models'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADA, KEY, startTestSandbox, type TestSandbox } from '../src/sandboxes/trello/test-support.ts'
import { SEED } from '../src/sandboxes/trello/seed.ts'
import { z } from 'zod'

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
afterAll(async () => { await sandbox?.close() })

// Where trello.js 2.2.0's schema is stricter than real Trello, a call goes through `unparsed`
// (`skipParsing` is per client) and is checked against the library's own schema with only the
// offending fields made nullable, so everything else stays validated:
// - a member's avatarHash/avatarUrl are `string | undefined` in trello.js, but Trello sends `null`
//   for a member without an avatar (captured: `"avatarHash":null,"avatarUrl":null` on members and
//   on actions' memberCreator); the seeded members have no avatar.
// - a board's idOrganization is `string | undefined` in trello.js, but Trello sends `null` for a
//   board outside any workspace (captured: `"idOrganization":null,"idEnterprise":null`); the
//   sandbox has no workspaces.
const avatar = { avatarHash: z.string().nullish(), avatarUrl: z.string().nullish() }
const MemberWithoutAvatar = MemberSchema.extend(avatar)
const CommentAction = ActionSchema.extend({ memberCreator: ActionSchema.shape.memberCreator.unwrap().extend(avatar) })
const PersonalBoards = z.array(BoardSchema.extend({ idOrganization: z.string().nullish() }))

const { board, lists, labels, cards } = SEED

describe('trello.js against the Trello sandbox', () => {
  it('reads the current member and their boards', async () => {
    const me = MemberWithoutAvatar.parse(await unparsed.members.getMember({ id: 'me' }))
    expect(me).toMatchObject({ id: ADA.id, username: ADA.username, fullName: ADA.fullName })

    const boards = PersonalBoards.parse(await unparsed.members.getMemberBoards({ id: 'me' }))
    const roadmap = boards.find((b) => b.id === board.id)
    expect(roadmap).toMatchObject({ name: board.name, closed: false, shortLink: board.shortLink })
  })

  it('lists the board\'s lists in order', async () => {
    const boardLists = await trello.boards.getBoardLists({ id: board.id })
    expect(boardLists.map((l) => l.id)).toEqual([lists.todo.id, lists.doing.id, lists.done.id])
    expect(boardLists[0]).toMatchObject({ name: lists.todo.name, idBoard: board.id, closed: false, pos: lists.todo.pos })
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
    expect(created).toMatchObject({ name: 'From trello.js', desc: 'Made by a real client', idList: lists.todo.id, idBoard: board.id, closed: false })
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

    const comment = CommentAction.parse(await unparsed.cards.createCardComment({ id: created.id, text: 'Commented through trello.js' }))
    expect(comment).toMatchObject({ type: 'commentCard', idMemberCreator: ADA.id, data: { text: 'Commented through trello.js' } })
    expect(comment.data.card).toMatchObject({ id: created.id })
    expect(comment.date).toBeInstanceOf(Date)

    const archived = await trello.cards.updateCard({ id: created.id, closed: true })
    expect(archived).toMatchObject({ id: created.id, closed: true })
    const afterArchive = await trello.lists.getListCards({ id: lists.doing.id })
    expect(afterArchive.map((c) => c.id)).not.toContain(created.id)
  })

  it('gets a list\'s seeded cards', async () => {
    const todo = await trello.lists.getListCards({ id: lists.todo.id })
    expect(todo.slice(0, 2).map((c) => c.id)).toEqual([cards.docs.id, cards.login.id])
    expect(todo[1]).toMatchObject({ name: cards.login.name, idLabels: [labels.bug.id], idList: lists.todo.id })
  })

  it('creates a checklist and adds a check item with a due date', async () => {
    const card = await trello.cards.createCard({ idList: lists.todo.id, name: 'Has a checklist' })
    const checklist = await trello.checklists.createChecklist({ idCard: card.id, name: 'Steps' })
    expect(checklist).toMatchObject({ name: 'Steps', idCard: card.id, idBoard: board.id, checkItems: [] })

    const item = await trello.checklists.createChecklistItem({ id: checklist.id, name: 'First step', due: '2025-04-01T09:30:00.000Z' })
    expect(item).toMatchObject({ name: 'First step', idChecklist: checklist.id, state: 'incomplete' })
    expect(item.due).toEqual(new Date('2025-04-01T09:30:00.000Z'))

    const reread = await trello.checklists.getChecklist({ id: checklist.id })
    expect(reread.checkItems?.map((i) => i.id)).toEqual([item.id])
  })

  it('raises an error carrying status 404 for a missing card', async () => {
    // trello.js has no error class: it throws `Request failed: <status> <statusText> - <body>`.
    const missing = trello.cards.getCard({ id: '0'.repeat(24) })
    await expect(missing).rejects.toThrow('Request failed: 404 Not Found - Could not find the card')
  })
})
