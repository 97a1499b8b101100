import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from '../seed.ts'
import { startTestSandbox, type TestSandbox } from '../test-support.ts'

let sandbox: TestSandbox
let ada: string
let grace: string

const { cards, members, board, lists } = SEED

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
  ada = await sandbox.token('ada')
  grace = await sandbox.token('grace')
})

describe('members', () => {
  it('GET /1/members/me, by id and by username', async () => {
    const me = (await sandbox.api('/1/members/me', ada)).body
    expect(me).toMatchObject({
      id: members.ada.id,
      username: 'ada',
      fullName: 'Ada Lovelace',
      initials: 'AL',
      url: 'https://trello.com/ada',
      email: 'ada@trello.test',
      idBoards: [board.id],
      confirmed: true,
      memberType: 'normal',
    })
    const byName = (await sandbox.api('/1/members/grace?fields=fullName,username,email', ada)).body
    expect(byName).toEqual({ id: members.grace.id, fullName: 'Grace Hopper', username: 'grace', email: null })
    expect((await sandbox.api(`/1/members/${members.grace.id}`, ada)).body.username).toBe('grace')
  })

  it('GET /1/members/me/boards with filter', async () => {
    const created = (
      await sandbox.api('/1/boards', ada, { form: { name: 'Side project', defaultLists: 'false' } })
    ).body
    const all = (await sandbox.api('/1/members/me/boards?fields=name,closed', ada)).body
    expect(all).toEqual([
      { id: board.id, name: 'Roadmap', closed: false },
      { id: created.id, name: 'Side project', closed: false },
    ])
    expect((await sandbox.api('/1/members/me/boards?filter=closed', ada)).body).toEqual([])
    const withLists = (await sandbox.api('/1/members/me/boards?filter=open&lists=open&fields=name', ada)).body
    expect(withLists[0].lists.map((l: { name: string }) => l.name)).toEqual(['To Do', 'Doing', 'Done'])
    // grace sees only the board she shares with ada.
    expect((await sandbox.api('/1/members/ada/boards?fields=name', grace)).body).toEqual([
      { id: board.id, name: 'Roadmap' },
    ])
    expect((await sandbox.api('/1/members/me/boards?filter=bogus', ada)).text).toBe(
      'invalid value for filter',
    )
  })
})

describe('notifications', () => {
  it('addedToCard when someone else adds you; none when you add yourself', async () => {
    await sandbox.api(`/1/cards/${cards.login.id}/idMembers`, ada, { form: { value: members.grace.id } })
    await sandbox.api(`/1/cards/${cards.ship.id}/idMembers`, ada, { form: { value: members.ada.id } })
    const notes = (await sandbox.api('/1/members/me/notifications', grace)).body
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatchObject({
      type: 'addedToCard',
      unread: true,
      dateRead: null,
      idMemberCreator: members.ada.id,
      memberCreator: { id: members.ada.id, username: 'ada' },
      data: {
        card: { id: cards.login.id, name: 'Fix login bug', shortLink: 'Card0003' },
        board: { id: board.id, name: 'Roadmap' },
      },
      reactions: [],
    })
    expect(notes[0].idAction).toMatch(/^[0-9a-f]{24}$/)
    expect((await sandbox.api('/1/members/me/notifications', ada)).body).toEqual([])
  })

  it('mentionedOnCard for @username, commentCard for card members', async () => {
    // grace is a member of "Write the docs"; ada comments there and mentions nobody.
    await sandbox.api(`/1/cards/${cards.docs.id}/actions/comments`, ada, { form: { text: 'Draft is up' } })
    // grace comments on ada's card and mentions ada: ada gets one mention (not also commentCard).
    await sandbox.act('grace', 'POST', `/1/cards/${cards.api.id}/actions/comments`, {
      text: 'Ping @ada and @nobody',
    })
    const graceNotes = (await sandbox.api('/1/members/me/notifications', grace)).body
    expect(graceNotes.map((n: { type: string }) => n.type)).toEqual(['commentCard'])
    expect(graceNotes[0].data).toMatchObject({ text: 'Draft is up', card: { id: cards.docs.id } })
    const adaNotes = (await sandbox.api('/1/members/me/notifications', ada)).body
    expect(adaNotes.map((n: { type: string }) => n.type)).toEqual(['mentionedOnCard'])
    expect(adaNotes[0]).toMatchObject({
      data: { text: 'Ping @ada and @nobody', card: { id: cards.api.id } },
      memberCreator: { username: 'grace' },
    })
  })

  it('changeCard when someone else moves your card; filters, read state', async () => {
    await sandbox.act('grace', 'PUT', `/1/cards/${cards.api.id}`, { idList: lists.done.id })
    await sandbox.act('grace', 'POST', `/1/cards/${cards.api.id}/actions/comments`, { text: 'Done!' })
    let notes = (await sandbox.api('/1/members/me/notifications', ada)).body
    expect(notes.map((n: { type: string }) => n.type)).toEqual(['commentCard', 'changeCard'])
    expect(notes[1].data).toMatchObject({
      listBefore: { id: lists.doing.id },
      listAfter: { id: lists.done.id },
      old: { idList: lists.doing.id },
    })
    expect((await sandbox.api('/1/members/me/notifications?filter=changeCard', ada)).body).toHaveLength(1)

    const readOnly = await sandbox.token('ada', { scope: 'read' })
    expect(
      (
        await sandbox.api(`/1/notifications/${notes[0].id}`, readOnly, {
          method: 'PUT',
          form: { unread: 'false' },
        })
      ).status,
    ).toBe(401)
    const read = await sandbox.api(`/1/notifications/${notes[0].id}`, ada, {
      method: 'PUT',
      form: { unread: 'false' },
    })
    expect(read.body).toMatchObject({ unread: false, dateRead: expect.stringMatching(/Z$/) })
    expect((await sandbox.api('/1/members/me/notifications?read_filter=unread', ada)).body).toHaveLength(1)
    await sandbox.api('/1/notifications/all/read', ada, { method: 'POST' })
    notes = (await sandbox.api('/1/members/me/notifications?read_filter=unread', ada)).body
    expect(notes).toEqual([])
  })

  it("only the token's own member may read notifications", async () => {
    const answer = await sandbox.api('/1/members/grace/notifications', ada)
    expect(answer.status).toBe(401)
    expect(answer.text).toBe('unauthorized permission requested')
  })
})
