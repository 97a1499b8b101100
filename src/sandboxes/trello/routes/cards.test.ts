import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from '../seed.ts'
import { startTestSandbox, type TestSandbox } from '../test-support.ts'

let sandbox: TestSandbox
let token: string

const { lists, labels, cards, members, board } = SEED
const OBJECT_ID = /^[0-9a-f]{24}$/
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
  token = await sandbox.token('ada')
})

const api = (path: string, init?: Parameters<TestSandbox['api']>[2]) => sandbox.api(path, token, init)
const create = async (fields: Record<string, string>) => {
  const answer = await api('/1/cards', { form: { idList: lists.todo.id, ...fields } })
  expect(answer.status).toBe(200)
  return answer.body
}
const latestAction = async (path: string, filter = 'all') =>
  (await api(`${path}?filter=${filter}&limit=1`)).body[0]

describe('GET /1/cards/{id}', () => {
  it('has the captured card shape', async () => {
    const card = (await api(`/1/cards/${cards.api.id}`)).body
    expect(card).toMatchObject({
      id: cards.api.id,
      name: 'Design the API',
      desc: 'Sketch the REST surface.',
      closed: false,
      idBoard: board.id,
      idList: lists.doing.id,
      idMembers: [members.ada.id],
      idLabels: [labels.feature.id],
      labels: [{ id: labels.feature.id, idBoard: board.id, name: 'Feature', color: 'green' }],
      idChecklists: [SEED.checklist.id],
      idShort: 1,
      shortLink: 'Card0001',
      shortUrl: 'https://trello.com/c/Card0001',
      url: 'https://trello.com/c/Card0001/1-design-the-api',
      pos: 16384,
      due: '2024-02-01T12:00:00.000Z',
      dueComplete: false,
      start: null,
      badges: {
        checkItems: 3,
        checkItemsChecked: 1,
        comments: 1,
        attachments: 0,
        description: true,
        due: '2024-02-01T12:00:00.000Z',
      },
      checkItemStates: [{ idCheckItem: SEED.checklist.items.draft.id, state: 'complete' }],
    })
    expect(card.dateLastActivity).toMatch(ISO)
  })

  it('accepts the shortLink, fields and nested arguments', async () => {
    const card = (
      await api(
        '/1/cards/Card0001?fields=name,idList&members=true&checklists=all&board=true&board_fields=name&list=true&actions=commentCard',
      )
    ).body
    expect(Object.keys(card).sort()).toEqual([
      'actions',
      'board',
      'checklists',
      'id',
      'idList',
      'list',
      'members',
      'name',
    ])
    expect(card.members).toEqual([{ id: members.ada.id, fullName: 'Ada Lovelace', username: 'ada' }])
    expect(card.board).toEqual({ id: board.id, name: 'Roadmap' })
    expect(card.list).toMatchObject({ id: lists.doing.id, name: 'Doing' })
    expect(card.checklists[0].checkItems).toHaveLength(3)
    expect(card.actions.map((a: { type: string }) => a.type)).toEqual(['commentCard'])
  })
})

describe('POST /1/cards', () => {
  it('creates a card at the bottom with an ObjectId, shortLink and idShort', async () => {
    const before = Date.now()
    const card = await create({
      name: 'New card',
      desc: 'Body',
      due: '2030-01-02T03:04:05.000Z',
      idMembers: members.grace.id,
      idLabels: `${labels.bug.id},${labels.docs.id}`,
    })
    expect(card.id).toMatch(OBJECT_ID)
    expect(parseInt(card.id.slice(0, 8), 16) * 1000).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000)
    expect(card.shortLink).toMatch(/^[0-9A-Za-z]{8}$/)
    expect(card).toMatchObject({
      name: 'New card',
      desc: 'Body',
      idShort: 5,
      pos: 32768 + 16384,
      due: '2030-01-02T03:04:05.000Z',
      idMembers: [members.grace.id],
    })
    expect(card.labels.map((l: { name: string }) => l.name)).toEqual(['Bug', 'Docs'])
    expect(card).toMatchObject({ attachments: [], stickers: [], limits: {} })

    const action = await latestAction(`/1/boards/${board.id}/actions`)
    expect(action).toMatchObject({
      type: 'createCard',
      idMemberCreator: members.ada.id,
      data: {
        card: { id: card.id, name: 'New card', idShort: 5, shortLink: card.shortLink },
        list: { id: lists.todo.id, name: 'To Do' },
        board: { id: board.id, name: 'Roadmap', shortLink: 'Rdmp2024' },
      },
      appCreator: { id: SEED.app.id },
      memberCreator: { id: members.ada.id, username: 'ada', fullName: 'Ada Lovelace' },
      display: { translationKey: 'action_create_card' },
    })
    expect(action.date).toMatch(ISO)
  })

  it('accepts a JSON body and urlSource', async () => {
    const answer = await api('/1/cards', {
      json: { idList: lists.done.id, name: 'From JSON', urlSource: 'https://example.com/spec' },
    })
    expect(answer.status).toBe(200)
    expect(answer.body.badges.attachments).toBe(1)
    expect(answer.body.attachments[0]).toMatchObject({
      url: 'https://example.com/spec',
      name: 'https://example.com/spec',
      isUpload: false,
    })
  })

  it.each([
    [{}, 'invalid value for idList'],
    [{ idList: 'nope' }, 'invalid value for idList'],
    [{ idList: '0'.repeat(24) }, 'invalid value for idList'],
    [{ idList: lists.todo.id, pos: '-5' }, 'invalid value for pos'],
    [{ idList: lists.todo.id, pos: 'middle' }, 'invalid value for pos'],
    [{ idList: lists.todo.id, idMembers: '0'.repeat(24) }, 'invalid value for idMembers'],
    [{ idList: lists.todo.id, idLabels: 'zzz' }, 'invalid value for idLabels'],
    [{ idList: lists.todo.id, due: 'someday' }, 'invalid value for due'],
    [{ idList: lists.todo.id, desc: 'x'.repeat(16385) }, 'invalid value for desc'],
  ])('refuses %j with 400 %s', async (form, text) => {
    const answer = await api('/1/cards', { form: form as Record<string, string> })
    expect(answer.status).toBe(400)
    expect(answer.text).toBe(text)
  })
})

describe('pos', () => {
  it('top, bottom and numbers order the list', async () => {
    const bottom = await create({ name: 'bottom', pos: 'bottom' })
    const top = await create({ name: 'top', pos: 'top' })
    const middle = await create({ name: 'middle', pos: '20000' })
    expect(top.pos).toBe(8192)
    expect(bottom.pos).toBe(49152)
    expect(middle.pos).toBe(20000)
    const names = (await api(`/1/lists/${lists.todo.id}/cards?fields=name,pos`)).body.map(
      (c: { name: string }) => c.name,
    )
    expect(names).toEqual(['top', 'Write the docs', 'middle', 'Fix login bug', 'bottom'])
  })

  it('an empty list starts at 16384, and PUT pos=top goes above the rest', async () => {
    const list = (await api('/1/lists', { form: { name: 'Empty', idBoard: board.id } })).body
    const first = await create({ idList: list.id, name: 'first' })
    const second = await create({ idList: list.id, name: 'second' })
    expect([first.pos, second.pos]).toEqual([16384, 32768])
    const moved = await api(`/1/cards/${second.id}`, { method: 'PUT', form: { pos: 'top' } })
    expect(moved.body.pos).toBe(8192)
  })
})

describe('PUT /1/cards/{id}', () => {
  it('moving to another list records updateCard with old, listBefore and listAfter', async () => {
    const moved = await api(`/1/cards/${cards.login.id}`, { method: 'PUT', form: { idList: lists.doing.id } })
    expect(moved.status).toBe(200)
    expect(moved.body.idList).toBe(lists.doing.id)
    const action = await latestAction(`/1/cards/${cards.login.id}/actions`)
    expect(action).toMatchObject({
      type: 'updateCard',
      data: {
        card: {
          idList: lists.doing.id,
          id: cards.login.id,
          name: 'Fix login bug',
          idShort: 3,
          shortLink: 'Card0003',
        },
        old: { idList: lists.todo.id },
        board: { id: board.id, name: 'Roadmap', shortLink: 'Rdmp2024' },
        listBefore: { id: lists.todo.id, name: 'To Do' },
        listAfter: { id: lists.doing.id, name: 'Doing' },
      },
      display: { translationKey: 'action_move_card_from_list_to_list' },
    })
    // Moves show up in the card's default action filter (commentCard, updateCard:idList).
    const defaults = (await api(`/1/cards/${cards.login.id}/actions`)).body
    expect(defaults.map((a: { type: string }) => a.type)).toEqual(['updateCard'])
  })

  it('archiving records data.card.closed and old.closed, and unarchiving the reverse', async () => {
    await api(`/1/cards/${cards.docs.id}`, { method: 'PUT', json: { closed: true } })
    let action = await latestAction(`/1/cards/${cards.docs.id}/actions`)
    expect(action.data).toMatchObject({
      card: { closed: true, id: cards.docs.id },
      old: { closed: false },
      list: { id: lists.todo.id },
    })
    expect(action.display.translationKey).toBe('action_archived_card')
    expect(
      (await api(`/1/lists/${lists.todo.id}/cards`)).body.map((c: { id: string }) => c.id),
    ).not.toContain(cards.docs.id)
    expect(
      (await api(`/1/lists/${lists.todo.id}/cards?filter=closed`)).body.map((c: { id: string }) => c.id),
    ).toEqual([cards.docs.id])
    await api(`/1/cards/${cards.docs.id}`, { method: 'PUT', form: { closed: 'false' } })
    action = await latestAction(`/1/cards/${cards.docs.id}/actions`)
    expect(action.data).toMatchObject({ card: { closed: false }, old: { closed: true } })
  })

  it('several fields change in one updateCard; unchanged ones are not recorded', async () => {
    const answer = await api(`/1/cards/${cards.api.id}`, {
      method: 'PUT',
      json: { name: 'Design the API v2', desc: 'Sketch the REST surface.', due: null, dueComplete: true },
    })
    expect(answer.body).toMatchObject({ name: 'Design the API v2', due: null, dueComplete: true })
    const action = await latestAction(`/1/cards/${cards.api.id}/actions`)
    expect(action.data.old).toEqual({
      name: 'Design the API',
      due: '2024-02-01T12:00:00.000Z',
      dueComplete: false,
    })
    expect(action.data.card).toMatchObject({ name: 'Design the API v2', due: null, dueComplete: true })
    expect(action.display.translationKey).toBe('action_renamed_card')
  })

  it('replacing idMembers and idLabels records their own actions', async () => {
    await api(`/1/cards/${cards.api.id}`, {
      method: 'PUT',
      form: { idMembers: members.grace.id, idLabels: `${labels.feature.id},${labels.bug.id}` },
    })
    const types = (await api(`/1/cards/${cards.api.id}/actions?filter=all&limit=10`)).body.map(
      (a: { type: string }) => a.type,
    )
    expect(types.slice(0, 4)).toEqual([
      'updateCard',
      'addMemberToCard',
      'removeMemberFromCard',
      'commentCard',
    ])
    const labelActions = (await api(`/1/cards/${cards.api.id}/actions?filter=addLabelToCard`)).body
    expect(labelActions[0].data).toMatchObject({
      value: 'red',
      text: 'Bug',
      label: { id: labels.bug.id, name: 'Bug', color: 'red' },
    })
  })

  it('moves a card to another board, dropping labels and members the board lacks', async () => {
    const other = (await api('/1/boards', { form: { name: 'Elsewhere' } })).body
    const moved = await api(`/1/cards/${cards.api.id}`, { method: 'PUT', form: { idBoard: other.id } })
    expect(moved.status).toBe(200)
    expect(moved.body).toMatchObject({
      idBoard: other.id,
      idLabels: [],
      idMembers: [members.ada.id],
      idShort: 1,
    })
    const otherLists = (await api(`/1/boards/${other.id}/lists`)).body
    expect(moved.body.idList).toBe(otherLists[0].id)
    const types = (await api(`/1/boards/${other.id}/actions`)).body.map((a: { type: string }) => a.type)
    expect(types).toContain('moveCardToBoard')
    const fromTypes = (await api(`/1/boards/${board.id}/actions?limit=1`)).body.map(
      (a: { type: string }) => a.type,
    )
    expect(fromTypes).toEqual(['moveCardFromBoard'])
  })

  it.each([
    [{ idList: '0'.repeat(24) }, 'invalid value for idList'],
    [{ pos: '0' }, 'invalid value for pos'],
    [{ closed: 'maybe' }, 'invalid value for closed'],
    [{ name: '' }, 'invalid value for name'],
    [{ idBoard: 'nope' }, 'invalid value for idBoard'],
  ])('refuses %j and changes nothing', async (form, text) => {
    const answer = await api(`/1/cards/${cards.login.id}`, {
      method: 'PUT',
      form: form as Record<string, string>,
    })
    expect(answer.status).toBe(400)
    expect(answer.text).toBe(text)
    expect((await api(`/1/cards/${cards.login.id}`)).body).toMatchObject({
      name: 'Fix login bug',
      idList: lists.todo.id,
      pos: 32768,
    })
  })
})

describe('DELETE /1/cards/{id}', () => {
  it('deletes the card and records deleteCard', async () => {
    const answer = await api(`/1/cards/${cards.ship.id}`, { method: 'DELETE' })
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({ limits: {} })
    expect((await api(`/1/cards/${cards.ship.id}`)).status).toBe(404)
    const action = await latestAction(`/1/boards/${board.id}/actions`)
    expect(action).toMatchObject({
      type: 'deleteCard',
      data: {
        card: { id: cards.ship.id, idShort: 4, shortLink: 'Card0004' },
        list: { id: lists.done.id, name: 'Done' },
        board: { id: board.id },
      },
    })
  })
})

describe('comments', () => {
  it('POST /1/cards/{id}/actions/comments answers the commentCard action', async () => {
    const answer = await api(`/1/cards/${cards.login.id}/actions/comments`, {
      form: { text: 'On it @grace' },
    })
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      type: 'commentCard',
      data: {
        text: 'On it @grace',
        textData: { emoji: {} },
        card: { id: cards.login.id },
        board: { id: board.id },
        list: { id: lists.todo.id },
      },
      display: { translationKey: 'action_comment_on_card' },
      limits: { reactions: { perAction: { status: 'ok' } } },
    })
    // Captured commentCard displays name the card in context and no list, though `data` has one.
    expect(answer.body.display.entities).toEqual({
      contextOn: {
        type: 'translatable',
        translationKey: 'action_on',
        hideIfContext: true,
        idContext: cards.login.id,
      },
      card: {
        type: 'card',
        hideIfContext: true,
        id: cards.login.id,
        shortLink: 'Card0003',
        text: 'Fix login bug',
      },
      comment: { type: 'comment', text: 'On it @grace' },
      memberCreator: { type: 'member', id: members.ada.id, username: 'ada', text: 'Ada Lovelace' },
    })
    expect((await api(`/1/cards/${cards.login.id}`)).body.badges.comments).toBe(1)
    expect((await api(`/1/cards/${cards.login.id}/actions/comments`, { form: { text: '' } })).text).toBe(
      'invalid value for text',
    )
  })
})

describe('card members', () => {
  it('adds, lists and removes members', async () => {
    const added = await api(`/1/cards/${cards.login.id}/idMembers`, { form: { value: members.grace.id } })
    expect(added.status).toBe(200)
    expect(added.body).toEqual([{ id: members.grace.id, fullName: 'Grace Hopper', username: 'grace' }])
    const action = await latestAction(`/1/cards/${cards.login.id}/actions`)
    expect(action).toMatchObject({
      type: 'addMemberToCard',
      data: {
        idMember: members.grace.id,
        member: { id: members.grace.id, name: 'Grace Hopper' },
        card: { id: cards.login.id },
      },
      member: { id: members.grace.id, username: 'grace' },
      display: { translationKey: 'action_added_member_to_card' },
    })
    expect(
      (await api(`/1/cards/${cards.login.id}/idMembers`, { form: { value: members.grace.id } })).text,
    ).toBe('member is already on the card')
    expect(
      (await api(`/1/cards/${cards.login.id}/members`)).body.map((m: { username: string }) => m.username),
    ).toEqual(['grace'])
    const removed = await api(`/1/cards/${cards.login.id}/idMembers/${members.grace.id}`, {
      method: 'DELETE',
    })
    expect(removed.body).toEqual([])
    expect((await latestAction(`/1/cards/${cards.login.id}/actions`)).type).toBe('removeMemberFromCard')
    expect(
      (await api(`/1/cards/${cards.login.id}/idMembers`, { form: { value: '0'.repeat(24) } })).text,
    ).toBe('invalid value for value')
  })
})

describe('card labels', () => {
  it('adds a label (addLabelToCard + updateCard idLabels) and removes it', async () => {
    const added = await api(`/1/cards/${cards.login.id}/idLabels`, { form: { value: labels.docs.id } })
    expect(added.body).toEqual([labels.bug.id, labels.docs.id])
    const [update, add] = (
      await api(`/1/cards/${cards.login.id}/actions?filter=addLabelToCard,updateCard&limit=2`)
    ).body
    expect(add.data).toMatchObject({
      value: 'blue',
      text: 'Docs',
      label: { id: labels.docs.id, color: 'blue' },
    })
    // As captured: the label entity has a color and no id, and `data.text` makes no comment entity.
    expect(add.display.entities).toEqual({
      card: { type: 'card', id: cards.login.id, shortLink: 'Card0003', text: 'Fix login bug' },
      label: { type: 'label', color: 'blue', text: 'Docs' },
      memberCreator: { type: 'member', id: members.ada.id, username: 'ada', text: 'Ada Lovelace' },
    })
    expect(update.data).toMatchObject({
      card: { idLabels: [labels.bug.id, labels.docs.id] },
      old: { idLabels: [labels.bug.id] },
    })
    // addLabelToCard reaches webhooks but stays out of filter=all lists (sources: Trello actions and webhooks).
    const all = (await api(`/1/cards/${cards.login.id}/actions?filter=all`)).body.map(
      (a: { type: string }) => a.type,
    )
    expect(all).not.toContain('addLabelToCard')
    expect((await api(`/1/cards/${cards.login.id}/idLabels`, { form: { value: labels.docs.id } })).text).toBe(
      'that label is already on the card',
    )
    const removed = await api(`/1/cards/${cards.login.id}/idLabels/${labels.docs.id}`, { method: 'DELETE' })
    expect(removed.body).toEqual({ _value: null })
    expect((await api(`/1/cards/${cards.login.id}`)).body.idLabels).toEqual([labels.bug.id])
  })
})

describe('attachments', () => {
  it('adds a link attachment and lists it', async () => {
    const added = await api(`/1/cards/${cards.login.id}/attachments`, {
      form: { url: 'https://github.com/acme/app/pull/1', name: 'PR #1' },
    })
    expect(added.status).toBe(200)
    expect(added.body).toMatchObject({
      id: expect.stringMatching(OBJECT_ID),
      name: 'PR #1',
      url: 'https://github.com/acme/app/pull/1',
      idMember: members.ada.id,
    })
    const listed = (await api(`/1/cards/${cards.login.id}/attachments`)).body
    expect(listed.map((a: { id: string }) => a.id)).toEqual([added.body.id])
    const action = await latestAction(`/1/boards/${board.id}/actions`)
    expect(action).toMatchObject({
      type: 'addAttachmentToCard',
      data: {
        attachment: { id: added.body.id, name: 'PR #1' },
        card: { id: cards.login.id },
        list: { id: lists.todo.id },
      },
    })
    expect((await api(`/1/cards/${cards.login.id}/attachments`, { form: { url: 'ftp://x' } })).text).toBe(
      'invalid value for url',
    )
  })
})

describe('checklists on cards', () => {
  it('lists checklists and updates check items', async () => {
    const listed = (await api(`/1/cards/${cards.api.id}/checklists`)).body
    expect(listed).toHaveLength(1)
    expect(listed[0].checkItems.map((i: { name: string; state: string }) => [i.name, i.state])).toEqual([
      ['Draft endpoints', 'complete'],
      ['Review with Grace', 'incomplete'],
      ['Publish', 'incomplete'],
    ])
    const item = SEED.checklist.items.review
    const updated = await api(`/1/cards/${cards.api.id}/checkItem/${item.id}`, {
      method: 'PUT',
      form: { state: 'complete' },
    })
    expect(updated.body).toMatchObject({ id: item.id, state: 'complete', idChecklist: SEED.checklist.id })
    const action = await latestAction(`/1/cards/${cards.api.id}/actions`)
    expect(action).toMatchObject({
      type: 'updateCheckItemStateOnCard',
      data: {
        checklist: { id: SEED.checklist.id, name: 'Launch checklist' },
        checkItem: { id: item.id, name: 'Review with Grace', state: 'complete' },
      },
      display: { translationKey: 'action_completed_checkitem' },
    })
    expect((await api(`/1/cards/${cards.api.id}`)).body.badges).toMatchObject({
      checkItems: 3,
      checkItemsChecked: 2,
    })
    const renamed = await api(`/1/cards/${cards.api.id}/checkItem/${item.id}`, {
      method: 'PUT',
      json: { name: 'Review with Ada', pos: 'top', state: false },
    })
    expect(renamed.body).toMatchObject({ name: 'Review with Ada', pos: 8192, state: 'incomplete' })
    expect(
      (await api(`/1/cards/${cards.api.id}/checkItem/${item.id}`, { method: 'PUT', form: { state: 'done' } }))
        .text,
    ).toBe('invalid value for state')
    expect(
      (
        await api(`/1/cards/${cards.api.id}/checkItem/${'0'.repeat(24)}`, {
          method: 'PUT',
          form: { state: 'complete' },
        })
      ).status,
    ).toBe(404)
  })

  it("keeps a check item's own due date, reminder and member", async () => {
    const checklist = SEED.checklist.id
    const added = await api(`/1/checklists/${checklist}/checkItems`, {
      method: 'POST',
      form: { name: 'Ship', due: '2031-02-03T04:05:06Z', dueReminder: '60', idMember: members.grace.id },
    })
    expect(added.body).toMatchObject({
      name: 'Ship',
      due: '2031-02-03T04:05:06.000Z',
      dueReminder: 60,
      idMember: members.grace.id,
    })
    expect((await api(`/1/cards/${cards.api.id}`)).body.badges.checkItemsEarliestDue).toBe(
      '2031-02-03T04:05:06.000Z',
    )

    const cleared = await api(`/1/cards/${cards.api.id}/checkItem/${added.body.id}`, {
      method: 'PUT',
      json: { due: null, dueReminder: -1, idMember: null },
    })
    expect(cleared.body).toMatchObject({ name: 'Ship', due: null, dueReminder: null, idMember: null })
    expect((await api(`/1/cards/${cards.api.id}`)).body.badges.checkItemsEarliestDue).toBeNull()
  })

  it.each([
    ['due', 'next tuesday'],
    ['dueReminder', '-5'],
    ['dueReminder', 'soon'],
    ['idMember', '0123456789abcdef01234567'],
    ['idMember', 'grace'],
  ])('refuses a check item with %s=%s', async (field, value) => {
    const refused = await api(`/1/checklists/${SEED.checklist.id}/checkItems`, {
      method: 'POST',
      form: { name: 'Bad', [field]: value },
    })
    expect(refused.status).toBe(400)
    expect(refused.text).toBe(`invalid value for ${field}`)
  })
})
