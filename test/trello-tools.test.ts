import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { client } from './helpers/stack.ts'
import { connectTrelloWithToken, TRELLO, trelloControl } from './helpers/trello.ts'

// Every Trello tool step runs against the sandbox over real HTTP, through the REST API; effects are
// read back through another step or straight from the sandbox's API.
let stack: TestStack
let integration: string
let api: ReturnType<typeof client>
let sandboxToken: string

beforeAll(async () => {
  stack = await startTestStack()
  integration = await connectTrelloWithToken(stack)
  api = client(stack, stack.apiKey)
  sandboxToken = await trelloControl(stack).mintToken()
})
afterAll(async () => {
  await stack?.close()
})

/** Runs a step and expects it to succeed. */
async function run(tool: string, input: Record<string, unknown>) {
  const { status, body } = await api.run(tool, integration, input)
  expect(status, `${tool} ${JSON.stringify(body)}`).toBe(200)
  return body.output
}

/** Reads the sandbox directly, as ada, to check what a step really did. */
async function sandboxGet(path: string): Promise<any> {
  const res = await fetch(`${stack.sandboxUrl}/trello/1${path}`, {
    headers: { authorization: `OAuth oauth_consumer_key="${TRELLO.app.key}", oauth_token="${sandboxToken}"` },
  })
  expect(res.status, path).toBe(200)
  return res.json()
}

/** A fresh list on the Roadmap board, so each test sees only its own cards. */
async function freshList(name = `list ${Math.random().toString(36).slice(2, 8)}`) {
  return run('trello.create_list', { name, board_id: TRELLO.board.id })
}

const names = (cards: Array<{ name: string }>) => cards.map((c) => c.name)

describe('Trello tool steps against the sandbox', () => {
  it('Get Boards lists the seeded Roadmap board with its open lists', async () => {
    const { boards } = await run('trello.get_boards', {})
    const roadmap = boards.find((b: any) => b.id === TRELLO.board.id)
    expect(roadmap).toMatchObject({ name: 'Roadmap', closed: false, shortLink: TRELLO.board.shortLink })
    const seeded: string[] = [TRELLO.lists.todo.id, TRELLO.lists.doing.id, TRELLO.lists.done.id]
    expect(roadmap.lists.map((l: any) => l.id).filter((id: string) => seeded.includes(id))).toEqual(seeded)
    expect(roadmap.lists[0]).toMatchObject({
      idBoard: TRELLO.board.id,
      closed: false,
      pos: expect.any(Number),
    })
    const closed = await run('trello.get_boards', { filter: 'closed' })
    expect(closed.boards).toEqual([])
  })

  it('Create List puts lists at the top, the bottom or a given position', async () => {
    const bottom = await freshList('bottom list')
    const top = await run('trello.create_list', { name: 'top list', board_id: TRELLO.board.id, pos: 'top' })
    const between = await run('trello.create_list', {
      name: 'between',
      board_id: TRELLO.board.id,
      pos: 20_000,
    })
    expect(top.pos).toBeLessThan(TRELLO.lists.todo.pos)
    expect(between.pos).toBe(20_000)
    const lists = await sandboxGet(`/boards/${TRELLO.board.id}/lists`)
    const order = lists.map((l: any) => l.id)
    expect(order[0]).toBe(top.id)
    expect(order.indexOf(between.id)).toBe(order.indexOf(TRELLO.lists.todo.id) + 1)
    expect(order.at(-1)).toBe(bottom.id)
  })

  it('Create Card sets name, description, due date and labels, and orders by pos', async () => {
    const list = await freshList()
    const first = await run('trello.create_card', {
      list_id: list.id,
      name: 'first',
      desc: 'In **Markdown**',
      due: '2025-03-01T17:00:00+02:00',
      label_ids: [TRELLO.labels.bug.id, TRELLO.labels.docs.id],
    })
    expect(first).toMatchObject({
      name: 'first',
      desc: 'In **Markdown**',
      idList: list.id,
      idBoard: TRELLO.board.id,
      due: '2025-03-01T15:00:00.000Z',
      closed: false,
    })
    expect(first.idLabels).toEqual([TRELLO.labels.bug.id, TRELLO.labels.docs.id])
    expect(first.id).toMatch(/^[0-9a-f]{24}$/)

    await run('trello.create_card', { list_id: list.id, name: 'last', pos: 'bottom' })
    await run('trello.create_card', { list_id: list.id, name: 'top', pos: 'top' })
    await run('trello.create_card', { list_id: list.id, name: 'middle', pos: first.pos + 1 })
    await run('trello.create_card', { list_id: list.id, name: 'no due', due: null })

    const { cards } = await run('trello.get_list_cards', { list_id: list.id })
    expect(names(cards)).toEqual(['top', 'first', 'middle', 'last', 'no due'])
    expect(cards.at(-1).due).toBeNull()
    const stored = await sandboxGet(`/cards/${first.id}`)
    expect(stored.labels.map((l: any) => l.name)).toEqual(['Bug', 'Docs'])
  })

  it('sends parameters as JSON bodies and never puts credentials in a URL', async () => {
    const control = trelloControl(stack)
    await control.clearRequests()
    const list = await freshList()
    await run('trello.create_card', { list_id: list.id, name: 'logged' })
    const requests: any[] = await control.requests()
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /trello/1/lists',
      'POST /trello/1/cards',
    ])
    for (const r of requests) {
      expect(Object.keys(r.query)).toEqual([])
      expect(r.headers['content-type']).toMatch(/application\/json/)
      expect(r.headers.authorization).toMatch(/^OAuth /)
    }
  })

  it('Update Card changes fields and replaces labels and members', async () => {
    const list = await freshList()
    const card = await run('trello.create_card', {
      list_id: list.id,
      name: 'before',
      label_ids: [TRELLO.labels.bug.id],
    })
    const updated = await run('trello.update_card', {
      card_id: card.id,
      name: 'after',
      desc: 'new text',
      due: '2030-01-02T03:04:05Z',
      due_complete: true,
      label_ids: [TRELLO.labels.feature.id],
      member_ids: [TRELLO.members.grace.id],
    })
    expect(updated).toMatchObject({
      id: card.id,
      name: 'after',
      desc: 'new text',
      due: '2030-01-02T03:04:05.000Z',
      dueComplete: true,
    })
    expect(updated.idLabels).toEqual([TRELLO.labels.feature.id])
    expect(updated.idMembers).toEqual([TRELLO.members.grace.id])

    const cleared = await run('trello.update_card', {
      card_id: card.id,
      due: null,
      label_ids: [],
      member_ids: [],
      desc: '',
    })
    expect(cleared).toMatchObject({ due: null, idLabels: [], idMembers: [], desc: '', name: 'after' })
  })

  it('Update Card moves a card between lists, and the sandbox records listBefore/listAfter', async () => {
    const from = await freshList('from')
    const to = await freshList('to')
    const card = await run('trello.create_card', { list_id: from.id, name: 'traveller' })
    await run('trello.create_card', { list_id: to.id, name: 'resident' })

    const moved = await run('trello.update_card', { card_id: card.id, list_id: to.id, pos: 'top' })
    expect(moved.idList).toBe(to.id)
    expect(names((await run('trello.get_list_cards', { list_id: from.id })).cards)).toEqual([])
    expect(names((await run('trello.get_list_cards', { list_id: to.id })).cards)).toEqual([
      'traveller',
      'resident',
    ])

    const actions = await sandboxGet(`/cards/${card.id}/actions?filter=updateCard:idList`)
    expect(actions).toHaveLength(1)
    expect(actions[0]).toMatchObject({
      type: 'updateCard',
      idMemberCreator: TRELLO.members.ada.id,
      data: {
        old: { idList: from.id },
        listBefore: { id: from.id, name: 'from' },
        listAfter: { id: to.id, name: 'to' },
        card: { id: card.id, idList: to.id },
      },
    })
  })

  it('Update Card moves a card to another board, into its first open list', async () => {
    const other = await trelloControl(stack).call('POST', '/boards', {
      name: 'Elsewhere',
      owner: 'ada',
      lists: ['Inbox', 'Later'],
    })
    expect(other.status).toBe(201)
    const board = other.body.board
    const list = await freshList()
    const card = await run('trello.create_card', { list_id: list.id, name: 'emigrant' })
    const moved = await run('trello.update_card', { card_id: card.id, board_id: board.id })
    expect(moved).toMatchObject({ idBoard: board.id, idList: board.lists[0].id })
  })

  it('Update Card needs at least one change', async () => {
    const { status, body } = await api.run('trello.update_card', integration, {
      card_id: TRELLO.cards.api.id,
    })
    expect(status).toBe(400)
    expect(body.code).toBe('invalid_input')
    expect(body.errors[0].message).toMatch(/at least one change/)
  })

  it('Get Card returns labels, checklists with items, members, list and board', async () => {
    const card = await run('trello.get_card', { card_id: TRELLO.cards.api.id })
    expect(card).toMatchObject({
      id: TRELLO.cards.api.id,
      name: 'Design the API',
      desc: 'Sketch the REST surface.',
      due: '2024-02-01T12:00:00.000Z',
      list: { id: TRELLO.lists.doing.id, name: 'Doing' },
      board: { id: TRELLO.board.id, name: 'Roadmap' },
    })
    expect(card.labels).toMatchObject([{ id: TRELLO.labels.feature.id, name: 'Feature', color: 'green' }])
    expect(card.members).toEqual([{ id: TRELLO.members.ada.id, fullName: 'Ada Lovelace', username: 'ada' }])
    expect(card.checklists).toHaveLength(1)
    expect(card.checklists[0]).toMatchObject({ id: TRELLO.checklist.id, name: 'Launch checklist' })
    expect(card.checklists[0].checkItems.map((i: any) => [i.name, i.state])).toEqual([
      ['Draft endpoints', 'complete'],
      ['Review with Grace', 'incomplete'],
      ['Publish', 'incomplete'],
    ])
  })

  it('Archive Card sets closed and takes the card out of its list', async () => {
    const list = await freshList()
    const card = await run('trello.create_card', { list_id: list.id, name: 'old news' })
    const archived = await run('trello.archive_card', { card_id: card.id })
    expect(archived).toMatchObject({ id: card.id, closed: true })
    expect((await sandboxGet(`/cards/${card.id}`)).closed).toBe(true)
    expect((await run('trello.get_list_cards', { list_id: list.id })).cards).toEqual([])
    expect(names((await run('trello.get_list_cards', { list_id: list.id, filter: 'closed' })).cards)).toEqual(
      ['old news'],
    )
    const actions = await sandboxGet(`/cards/${card.id}/actions?filter=updateCard:closed`)
    expect(actions[0].data).toMatchObject({ card: { closed: true }, old: { closed: false } })

    const restored = await run('trello.update_card', { card_id: card.id, closed: false })
    expect(restored.closed).toBe(false)
  })

  it('Add Comment to Card posts a comment and returns the commentCard action', async () => {
    const list = await freshList()
    const card = await run('trello.create_card', { list_id: list.id, name: 'discussed' })
    const action = await run('trello.add_comment_to_card', { card_id: card.id, text: 'Looks *good*, @grace' })
    expect(action).toMatchObject({
      type: 'commentCard',
      idMemberCreator: TRELLO.members.ada.id,
      data: { text: 'Looks *good*, @grace', card: { id: card.id } },
    })
    const comments = await sandboxGet(`/cards/${card.id}/actions?filter=commentCard`)
    expect(comments.map((c: any) => c.id)).toEqual([action.id])
    expect((await sandboxGet(`/cards/${card.id}`)).badges.comments).toBe(1)
  })

  it('the legacy Add Comment keeps its { card_id, comment } shape and has the same effect', async () => {
    const list = await freshList()
    const viaNew = await run('trello.create_card', { list_id: list.id, name: 'new way' })
    const viaLegacy = await run('trello.create_card', { list_id: list.id, name: 'old way' })
    const fresh = await run('trello.add_comment_to_card', { card_id: viaNew.id, text: 'same words' })
    const legacy = await run('trello.add_comment', { card_id: viaLegacy.id, comment: 'same words' })

    const strip = (a: any) => ({
      type: a.type,
      idMemberCreator: a.idMemberCreator,
      text: a.data.text,
      appCreator: a.appCreator,
    })
    expect(strip(legacy)).toEqual(strip(fresh))
    expect(legacy.data.card.id).toBe(viaLegacy.id)
    const stored = await sandboxGet(`/cards/${viaLegacy.id}/actions?filter=commentCard`)
    expect(stored.map((a: any) => [a.id, a.data.text])).toEqual([[legacy.id, 'same words']])

    const described = await api.get('/v1/tools/trello.add_comment')
    expect(described.status).toBe(200)
    expect(described.body).toMatchObject({ id: 'trello.add_comment', legacy: true, effect: 'write' })
    expect(Object.keys(described.body.inputSchema.properties).sort()).toEqual(['card_id', 'comment'])
    expect((await api.get('/v1/tools/trello.add_comment_to_card')).body.legacy).toBe(false)
    // The new-shape input is not silently accepted by the legacy step.
    const wrongShape = await api.run('trello.add_comment', integration, { card_id: viaLegacy.id, text: 'x' })
    expect(wrongShape.status).toBe(400)
  })

  it('Add Checklist adds a checklist with its first items, in order', async () => {
    const list = await freshList()
    const card = await run('trello.create_card', { list_id: list.id, name: 'launch' })
    const checklist = await run('trello.add_checklist', {
      card_id: card.id,
      name: 'Steps',
      items: ['one', 'two', 'three'],
    })
    expect(checklist).toMatchObject({ name: 'Steps', idCard: card.id, idBoard: TRELLO.board.id })
    expect(checklist.checkItems.map((i: any) => [i.name, i.state])).toEqual([
      ['one', 'incomplete'],
      ['two', 'incomplete'],
      ['three', 'incomplete'],
    ])

    const second = await run('trello.add_checklist', { card_id: card.id, pos: 'top' })
    expect(second).toMatchObject({ name: 'Checklist', checkItems: [] })
    const { checklists } = await run('trello.get_card', { card_id: card.id })
    expect(checklists.map((c: any) => c.name)).toEqual(['Checklist', 'Steps'])
    expect(checklists[1].checkItems.map((i: any) => i.name)).toEqual(['one', 'two', 'three'])
  })

  it('Add Checklist says which checklist exists when adding an item fails', async () => {
    const list = await freshList()
    const card = await run('trello.create_card', { list_id: list.id, name: 'half done' })
    const control = trelloControl(stack)
    await control.fault({ status: 400, match: { method: 'POST', path: '/checkItems' }, times: 1 })
    try {
      const { status, body } = await api.run('trello.add_checklist', integration, {
        card_id: card.id,
        name: 'Partial',
        items: ['a', 'b'],
      })
      expect(status).toBe(400)
      const [checklist] = (await run('trello.get_card', { card_id: card.id })).checklists
      expect(checklist.name).toBe('Partial')
      expect(body.detail).toContain(`checklist ${checklist.id} was created with 0 of 2 items`)
    } finally {
      await control.clearFaults()
    }
  })

  it('Create a Checklist Item adds items at a position, checked or not', async () => {
    const list = await freshList()
    const card = await run('trello.create_card', { list_id: list.id, name: 'todo' })
    const checklist = await run('trello.add_checklist', {
      card_id: card.id,
      name: 'Items',
      items: ['middle'],
    })
    const done = await run('trello.create_checklist_item', {
      checklist_id: checklist.id,
      name: 'first',
      pos: 'top',
      checked: true,
    })
    expect(done).toMatchObject({ name: 'first', state: 'complete', idChecklist: checklist.id })
    const last = await run('trello.create_checklist_item', {
      checklist_id: checklist.id,
      name: 'last',
      due: '2030-06-01T09:00:00Z',
    })
    expect(last).toMatchObject({ name: 'last', state: 'incomplete', due: '2030-06-01T09:00:00.000Z' })
    await run('trello.create_checklist_item', {
      checklist_id: checklist.id,
      name: 'second',
      pos: checklist.checkItems[0].pos - 1,
    })

    const stored = await sandboxGet(`/checklists/${checklist.id}`)
    expect(stored.checkItems.map((i: any) => [i.name, i.state])).toEqual([
      ['first', 'complete'],
      ['second', 'incomplete'],
      ['middle', 'incomplete'],
      ['last', 'incomplete'],
    ])
    expect(stored.checkItems.find((i: any) => i.name === 'last').due).toBe('2030-06-01T09:00:00.000Z')
    expect((await sandboxGet(`/cards/${card.id}`)).badges).toMatchObject({
      checkItems: 4,
      checkItemsChecked: 1,
      checkItemsEarliestDue: '2030-06-01T09:00:00.000Z',
    })
  })

  it("a missing card is not_found in Trello's words", async () => {
    const missing = '0123456789abcdef01234567'
    const { status, body } = await api.run('trello.get_card', integration, { card_id: missing })
    expect(status).toBe(404)
    expect(body).toMatchObject({ code: 'not_found', upstream_status: 404 })
    expect(body.detail).toMatch(/Could not find the card/)
    const archive = await api.run('trello.archive_card', integration, { card_id: missing })
    expect(archive.status).toBe(404)
    expect(archive.body.code).toBe('not_found')
  })

  it('a label of another board is refused by Trello as invalid input', async () => {
    const other = await trelloControl(stack).call('POST', '/boards', {
      name: 'Labelled',
      owner: 'ada',
      labels: [{ name: 'Alien', color: 'pink' }],
    })
    const { status, body } = await api.run('trello.create_card', integration, {
      list_id: TRELLO.lists.todo.id,
      label_ids: [other.body.board.labels[0].id],
    })
    expect(status).toBe(400)
    expect(body).toMatchObject({ code: 'invalid_input', upstream_status: 400 })
    expect(body.detail).toMatch(/invalid value for idLabels/)
  })

  it('Trello API Call forwards a request and maps the answer to variables', async () => {
    const { status, body } = await api.run('trello.api_call', integration, {
      method: 'GET',
      endpoint: `/1/boards/${TRELLO.board.id}`,
      query: { fields: 'name' },
      map: { name: 'body.name', code: 'status' },
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.output).toMatchObject({
      status: 200,
      body: { id: TRELLO.board.id, name: 'Roadmap' },
      variables: { name: 'Roadmap', code: 200 },
    })
  })

  it('the catalogue search "board" finds every Trello step', async () => {
    const all = (await api.get('/v1/tools')).body.tools
      .filter((t: any) => t.platform === 'trello')
      .map((t: any) => t.id)
    expect(all.sort()).toEqual([
      'trello.add_checklist',
      'trello.add_comment',
      'trello.add_comment_to_card',
      'trello.api_call',
      'trello.archive_card',
      'trello.create_card',
      'trello.create_checklist_item',
      'trello.create_list',
      'trello.get_boards',
      'trello.get_card',
      'trello.get_list_cards',
      'trello.update_card',
    ])
    const found = (await api.get('/v1/tools?q=board')).body.tools.map((t: any) => t.id)
    expect(found).toEqual(expect.arrayContaining(all))
    // The legacy step ranks below its replacement.
    expect(found.indexOf('trello.add_comment')).toBeGreaterThan(found.indexOf('trello.add_comment_to_card'))
  })

  it('every Trello step declares its effect, a description and an input schema that refuses unknown fields', async () => {
    const tools = (await api.get('/v1/tools')).body.tools.filter(
      (t: any) => t.platform === 'trello' && t.id !== 'trello.api_call',
    )
    expect(tools).toHaveLength(11)
    const effects = Object.fromEntries(tools.map((t: any) => [t.id, t.effect]))
    expect(effects).toMatchObject({
      'trello.get_boards': 'read',
      'trello.get_card': 'read',
      'trello.get_list_cards': 'read',
      'trello.create_card': 'write',
      'trello.archive_card': 'write',
    })
    for (const t of tools) {
      expect(t.description.length, t.id).toBeGreaterThan(30)
      expect(t.inputSchema.additionalProperties, t.id).toBe(false)
    }
  })
})

describe('a refusal for one card does not break the integration', () => {
  let stack2: TestStack
  beforeAll(async () => {
    stack2 = await startTestStack()
  })
  afterAll(async () => {
    await stack2?.close()
  })

  it('ada reading a card on a board she cannot see gets platform_refused, and her integration stays active', async () => {
    const control = trelloControl(stack2)
    const board = await control.call('POST', '/boards', { name: 'Private', owner: 'grace' })
    const graceToken = await control.mintToken('grace')
    const auth = {
      authorization: `OAuth oauth_consumer_key="${TRELLO.app.key}", oauth_token="${graceToken}"`,
      'content-type': 'application/json',
    }
    const lists = (await (
      await fetch(`${stack2.sandboxUrl}/trello/1/boards/${board.body.id ?? board.body.board?.id}/lists`, {
        headers: auth,
      })
    ).json()) as any[]
    const card = (await (
      await fetch(`${stack2.sandboxUrl}/trello/1/cards`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ idList: lists[0].id, name: 'secret' }),
      })
    ).json()) as any
    const integration = await connectTrelloWithToken(stack2, 'ada')
    const refused = await client(stack2, stack2.apiKey).run('trello.get_card', integration, {
      card_id: card.id,
    })
    expect(refused.body.code).toBe('platform_refused')
    const view = await client(stack2, stack2.apiKey).get(`/v1/integrations/${integration}`)
    expect(view.body.status).toBe('active')
  })
})
