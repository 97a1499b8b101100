import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from '../seed.ts'
import { startTestSandbox, type TestSandbox } from '../test-support.ts'

let sandbox: TestSandbox
let token: string

const { lists, labels, cards, members, board } = SEED

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
  token = await sandbox.token('ada')
})

const api = (path: string, init?: Parameters<TestSandbox['api']>[2]) => sandbox.api(path, token, init)
const ids = (items: { id: string }[]) => items.map((i) => i.id)

describe('boards', () => {
  it('GET /1/boards/{id} has the captured shape, by id or shortLink', async () => {
    const answer = await api(`/1/boards/${board.id}`)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      id: board.id,
      name: 'Roadmap',
      desc: 'What we are building next.',
      closed: false,
      idOrganization: null,
      pinned: false,
      url: 'https://trello.com/b/Rdmp2024/roadmap',
      shortUrl: 'https://trello.com/b/Rdmp2024',
      shortLink: 'Rdmp2024',
      prefs: { permissionLevel: 'private', background: 'blue' },
      labelNames: { green: 'Feature', red: 'Bug', blue: 'Docs', yellow: '', yellow_light: '' },
    })
    expect(answer.body).not.toHaveProperty('memberships')
    expect((await api('/1/boards/Rdmp2024?fields=name')).body).toEqual({ id: board.id, name: 'Roadmap' })
  })

  it('nests lists, cards, labels, members, memberships, checklists and actions', async () => {
    const answer = await api(
      `/1/boards/${board.id}?fields=name&lists=open&list_fields=name&cards=open&card_fields=name,idList&labels=all&label_fields=name,color&members=all&memberships=all&checklists=all&actions=createCard&actions_limit=2`,
    )
    const body = answer.body
    expect(body.lists).toEqual([
      { id: lists.todo.id, name: 'To Do' },
      { id: lists.doing.id, name: 'Doing' },
      { id: lists.done.id, name: 'Done' },
    ])
    expect(body.cards.map((c: { name: string }) => c.name)).toEqual([
      'Write the docs',
      'Fix login bug',
      'Design the API',
      'Ship v1',
    ])
    expect(Object.keys(body.cards[0]).sort()).toEqual(['id', 'idList', 'name'])
    expect(body.labels).toEqual([
      { id: labels.feature.id, name: 'Feature', color: 'green' },
      { id: labels.bug.id, name: 'Bug', color: 'red' },
      { id: labels.docs.id, name: 'Docs', color: 'blue' },
    ])
    expect(body.members.map((m: { username: string }) => m.username)).toEqual(['ada', 'grace'])
    expect(body.memberships).toEqual([
      {
        id: expect.any(String),
        idMember: members.ada.id,
        memberType: 'admin',
        unconfirmed: false,
        deactivated: false,
      },
      {
        id: expect.any(String),
        idMember: members.grace.id,
        memberType: 'normal',
        unconfirmed: false,
        deactivated: false,
      },
    ])
    expect(body.checklists).toHaveLength(1)
    expect(body.actions).toHaveLength(2)
    expect(body.actions.every((a: { type: string }) => a.type === 'createCard')).toBe(true)
  })

  it('GET /1/boards/{id}/lists, /cards, /labels, /members, /actions', async () => {
    const boardLists = (await api(`/1/boards/${board.id}/lists?cards=open&card_fields=name`)).body
    expect(ids(boardLists)).toEqual([lists.todo.id, lists.doing.id, lists.done.id])
    expect(boardLists[0]).toMatchObject({
      name: 'To Do',
      closed: false,
      idBoard: board.id,
      pos: 16384,
      subscribed: false,
      softLimit: null,
    })
    expect(boardLists[0].cards.map((c: { name: string }) => c.name)).toEqual([
      'Write the docs',
      'Fix login bug',
    ])

    expect(ids((await api(`/1/boards/${board.id}/cards`)).body)).toEqual([
      cards.docs.id,
      cards.login.id,
      cards.api.id,
      cards.ship.id,
    ])
    const labelled = (await api(`/1/boards/${board.id}/labels?fields=name`)).body
    expect(labelled).toEqual([
      { id: labels.feature.id, name: 'Feature' },
      { id: labels.bug.id, name: 'Bug' },
      { id: labels.docs.id, name: 'Docs' },
    ])
    const boardMembers = (await api(`/1/boards/${board.id}/members`)).body
    expect(boardMembers).toEqual([
      { id: members.ada.id, fullName: 'Ada Lovelace', username: 'ada' },
      { id: members.grace.id, fullName: 'Grace Hopper', username: 'grace' },
    ])
    const actions = (await api(`/1/boards/${board.id}/actions`)).body
    expect(actions[0]).toMatchObject({
      id: SEED.comment.id,
      type: 'commentCard',
      idMemberCreator: members.grace.id,
      data: { text: 'Looks good to me, @ada' },
    })
    expect(actions.map((a: { type: string }) => a.type)).toEqual([
      'commentCard',
      'createCard',
      'createCard',
      'createCard',
      'createCard',
      'createBoard',
    ])
    const paged = (await api(`/1/boards/${board.id}/actions?limit=2&page=1&fields=type`)).body
    expect(paged).toEqual([
      { id: expect.any(String), type: 'createCard' },
      { id: expect.any(String), type: 'createCard' },
    ])
    const before = (await api(`/1/boards/${board.id}/actions?before=${SEED.comment.id}&limit=1`)).body
    expect(before[0].type).toBe('createCard')
  })

  it('POST /1/boards creates the default lists and labels, the caller as admin', async () => {
    const created = await api('/1/boards', { form: { name: 'Launch', desc: 'Go time' } })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({
      name: 'Launch',
      desc: 'Go time',
      closed: false,
      prefs: { permissionLevel: 'private' },
    })
    const id = created.body.id
    expect(
      (await api(`/1/boards/${id}/lists`)).body.map((l: { name: string; pos: number }) => [l.name, l.pos]),
    ).toEqual([
      ['To Do', 16384],
      ['Doing', 32768],
      ['Done', 49152],
    ])
    expect((await api(`/1/boards/${id}/labels`)).body.map((l: { color: string }) => l.color)).toEqual([
      'green',
      'yellow',
      'orange',
      'red',
      'purple',
      'blue',
    ])
    const actions = (await api(`/1/boards/${id}/actions`)).body
    expect(actions).toMatchObject([
      { type: 'createBoard', data: { board: { id, name: 'Launch', shortLink: created.body.shortLink } } },
    ])
    const bare = await api('/1/boards', { json: { name: 'Bare', defaultLists: false, defaultLabels: false } })
    expect((await api(`/1/boards/${bare.body.id}/lists`)).body).toEqual([])
    expect((await api('/1/boards', { form: { desc: 'no name' } })).text).toBe('invalid value for name')
    expect((await api('/1/members/me/boards?fields=name')).body.map((b: { name: string }) => b.name)).toEqual(
      ['Roadmap', 'Launch', 'Bare'],
    )
  })
})

describe('lists', () => {
  it('GET, POST and PUT /1/lists with updateList actions', async () => {
    const list = (await api(`/1/lists/${lists.doing.id}?cards=open&card_fields=name`)).body
    expect(list).toMatchObject({
      id: lists.doing.id,
      name: 'Doing',
      idBoard: board.id,
      pos: 32768,
      cards: [{ name: 'Design the API' }],
    })

    const created = await api('/1/lists', { form: { name: 'Review', idBoard: board.id, pos: '40000' } })
    expect(created.body).toMatchObject({ name: 'Review', pos: 40000, closed: false, idBoard: board.id })
    expect((await api(`/1/boards/${board.id}/actions?limit=1`)).body[0]).toMatchObject({
      type: 'createList',
      data: { list: { id: created.body.id, name: 'Review' }, board: { id: board.id } },
    })

    const renamed = await api(`/1/lists/${created.body.id}`, { method: 'PUT', form: { name: 'In review' } })
    expect(renamed.body.name).toBe('In review')
    const rename = (await api(`/1/boards/${board.id}/actions?limit=1`)).body[0]
    expect(rename).toMatchObject({
      type: 'updateList',
      data: { list: { name: 'In review', id: created.body.id }, old: { name: 'Review' } },
      display: { translationKey: 'action_renamed_list' },
    })
    await api(`/1/lists/${created.body.id}`, { method: 'PUT', json: { closed: true, pos: 'top' } })
    const archived = (await api(`/1/lists/${created.body.id}`)).body
    expect(archived).toMatchObject({ closed: true, pos: 8192 })
    expect(ids((await api(`/1/boards/${board.id}/lists`)).body)).not.toContain(created.body.id)
    expect(ids((await api(`/1/boards/${board.id}/lists?filter=closed`)).body)).toEqual([created.body.id])

    expect((await api('/1/lists', { form: { name: 'x' } })).text).toBe('invalid value for idBoard')
    expect((await api('/1/lists', { form: { idBoard: board.id } })).text).toBe('invalid value for name')
    expect((await api(`/1/lists/${lists.todo.id}`, { method: 'PUT', form: { pos: 'nowhere' } })).text).toBe(
      'invalid value for pos',
    )
  })

  it('GET /1/lists/{id}/cards', async () => {
    const answer = await api(`/1/lists/${lists.todo.id}/cards?fields=name`)
    expect(answer.body).toEqual([
      { id: cards.docs.id, name: 'Write the docs' },
      { id: cards.login.id, name: 'Fix login bug' },
    ])
  })
})

describe('checklists', () => {
  it('GET, POST /1/checklists and POST checkItems', async () => {
    const seeded = (await api(`/1/checklists/${SEED.checklist.id}`)).body
    expect(seeded).toMatchObject({
      id: SEED.checklist.id,
      name: 'Launch checklist',
      idBoard: board.id,
      idCard: cards.api.id,
      pos: 16384,
    })
    expect(seeded.checkItems[0]).toEqual({
      id: SEED.checklist.items.draft.id,
      name: 'Draft endpoints',
      nameData: { emoji: {} },
      pos: 16384,
      due: null,
      dueReminder: null,
      idMember: null,
      idChecklist: SEED.checklist.id,
      state: 'complete',
    })
    expect((await api(`/1/checklists/${SEED.checklist.id}?checkItems=none&fields=name`)).body).toEqual({
      id: SEED.checklist.id,
      name: 'Launch checklist',
    })

    const created = await api('/1/checklists', { form: { idCard: cards.login.id, name: 'Repro steps' } })
    expect(created.body).toMatchObject({
      name: 'Repro steps',
      idCard: cards.login.id,
      idBoard: board.id,
      pos: 16384,
      checkItems: [],
    })
    expect(
      (await api(`/1/cards/${cards.login.id}/actions?filter=addChecklistToCard`)).body[0].data,
    ).toMatchObject({
      checklist: { id: created.body.id, name: 'Repro steps' },
      card: { id: cards.login.id },
    })
    const item = await api(`/1/checklists/${created.body.id}/checkItems`, {
      form: { name: 'Open the app', checked: 'true' },
    })
    expect(item.body).toMatchObject({
      name: 'Open the app',
      state: 'complete',
      pos: 16384,
      idChecklist: created.body.id,
    })
    const second = await api(`/1/checklists/${created.body.id}/checkItems`, {
      json: { name: 'Log in', pos: 'top' },
    })
    expect(second.body).toMatchObject({ state: 'incomplete', pos: 8192 })
    expect(
      (await api(`/1/checklists/${created.body.id}`)).body.checkItems.map((i: { name: string }) => i.name),
    ).toEqual(['Log in', 'Open the app'])
    expect((await api(`/1/cards/${cards.login.id}`)).body.idChecklists).toEqual([created.body.id])
    expect((await api('/1/checklists', { form: { name: 'orphan' } })).text).toBe('invalid value for idCard')
    expect((await api(`/1/checklists/${created.body.id}/checkItems`, { form: {} })).text).toBe(
      'invalid value for name',
    )
  })
})

describe('labels', () => {
  it('GET and POST /1/labels', async () => {
    expect((await api(`/1/labels/${labels.bug.id}`)).body).toEqual({
      id: labels.bug.id,
      idBoard: board.id,
      name: 'Bug',
      color: 'red',
      uses: 1,
    })
    const created = await api('/1/labels', {
      form: { name: 'Urgent', color: 'orange_dark', idBoard: board.id },
    })
    expect(created.body).toMatchObject({ name: 'Urgent', color: 'orange_dark', idBoard: board.id, uses: 0 })
    const colorless = await api('/1/labels', { json: { name: 'Plain', color: null, idBoard: board.id } })
    expect(colorless.body.color).toBeNull()
    const action = (await api(`/1/boards/${board.id}/actions?filter=createLabel&limit=1`)).body[0]
    expect(action.data).toEqual({
      label: { id: colorless.body.id, name: 'Plain', color: null },
      board: { id: board.id, name: 'Roadmap', shortLink: 'Rdmp2024' },
    })
    expect(
      (await api('/1/labels', { form: { name: 'x', color: 'chartreuse', idBoard: board.id } })).text,
    ).toBe('invalid value for color')
    expect((await api('/1/labels', { form: { name: 'x', idBoard: board.id } })).text).toBe(
      'invalid value for color',
    )
    expect((await api('/1/labels', { form: { name: 'x', color: 'red' } })).text).toBe(
      'invalid value for idBoard',
    )
    expect((await api('/1/labels/nope')).text).toBe('invalid id')
  })
})
