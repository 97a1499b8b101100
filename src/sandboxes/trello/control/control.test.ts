import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from '../seed.ts'
import {
  call,
  KEY,
  parseForm,
  PASSWORD,
  postForm,
  startTestSandbox,
  type TestSandbox,
} from '../test-support.ts'

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
})

describe('seeded world', () => {
  it('has the documented fixed values', async () => {
    const members = (await sandbox.control('/members')).body.members
    expect(members).toEqual([
      {
        id: '659200805eed000000000001',
        username: 'ada',
        fullName: 'Ada Lovelace',
        email: 'ada@trello.test',
        initials: 'AL',
      },
      {
        id: '659200805eed000000000002',
        username: 'grace',
        fullName: 'Grace Hopper',
        email: 'grace@trello.test',
        initials: 'GH',
      },
    ])
    const apps = (await sandbox.control('/apps')).body.apps
    expect(apps).toEqual([
      {
        id: SEED.app.id,
        name: 'Switchyard',
        key: '0123456789abcdef0123456789abcdef',
        secret: 'fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210',
        owner: 'ada',
        allowed_origins: ['http://localhost:*', 'http://127.0.0.1:*'],
      },
    ])
    const boards = (await sandbox.control('/boards')).body.boards
    expect(boards).toHaveLength(1)
    expect(boards[0]).toMatchObject({
      id: '659200805eed000000000010',
      name: 'Roadmap',
      shortLink: 'Rdmp2024',
    })
    expect(boards[0].lists.map((l: { name: string }) => l.name)).toEqual(['To Do', 'Doing', 'Done'])
    expect(boards[0].members.map((m: { username: string }) => m.username)).toEqual(['ada', 'grace'])
  })

  it('seed: false starts empty', async () => {
    const empty = await (await import('../test-support.ts')).startTestSandbox({ seed: false })
    try {
      expect((await empty.control('/members')).body.members).toEqual([])
      expect((await empty.control('/apps')).body.apps).toEqual([])
    } finally {
      await empty.close()
    }
  })
})

describe('building the world', () => {
  it('members, apps, boards and tokens', async () => {
    const member = await sandbox.control('/members', {
      body: {
        username: 'Linus',
        fullName: 'Linus Torvalds',
        email: 'linus@trello.test',
        password: 'penguin',
      },
    })
    expect(member.status).toBe(201)
    expect(member.body.member).toMatchObject({
      username: 'linus',
      fullName: 'Linus Torvalds',
      initials: 'LT',
    })
    expect(
      (
        await sandbox.control('/members', {
          body: { username: 'linus', fullName: 'x', email: 'x@trello.test' },
        })
      ).status,
    ).toBe(409)
    expect(
      (await sandbox.control('/members', { body: { username: 'x', fullName: 'x', email: 'y@trello.test' } }))
        .status,
    ).toBe(400)

    const app = await sandbox.control('/apps', {
      body: { name: 'Kernel bot', owner: 'linus', allowed_origins: ['https://kernel.example'] },
    })
    expect(app.status).toBe(201)
    expect(app.body.key).toMatch(/^[0-9a-f]{32}$/)
    expect(app.body.secret).toMatch(/^[0-9a-f]{64}$/)
    expect(
      (await sandbox.control('/apps', { body: { name: 'x', allowed_origins: ['ftp://nope'] } })).status,
    ).toBe(400)

    const board = await sandbox.control('/boards', {
      body: {
        name: 'Kernel',
        owner: 'linus',
        members: ['ada'],
        lists: ['Backlog', 'Merged'],
        labels: [{ name: 'Regression', color: 'red' }],
      },
    })
    expect(board.status).toBe(201)
    expect(board.body.board.lists.map((l: { name: string; pos: number }) => [l.name, l.pos])).toEqual([
      ['Backlog', 16384],
      ['Merged', 32768],
    ])
    expect(board.body.board.labels).toMatchObject([{ name: 'Regression', color: 'red' }])

    const token = await sandbox.control('/tokens', {
      body: { member: 'linus', key: app.body.key, scope: 'read', expiration: '1day' },
    })
    expect(token.status).toBe(201)
    expect(token.body).toMatchObject({
      token: expect.stringMatching(/^[0-9a-f]{64}$/),
      key: app.body.key,
      member: 'linus',
      scopes: ['read'],
      expiration: '1day',
    })
    const boards = await sandbox.api('/1/members/me/boards?fields=name', token.body.token, {
      key: app.body.key,
    })
    expect(boards.body).toEqual([{ id: board.body.board.id, name: 'Kernel' }])
    expect((await sandbox.control('/tokens', { body: { member: 'nobody' } })).status).toBe(400)
    expect((await sandbox.control('/tokens', { body: { member: 'ada', scope: 'admin' } })).status).toBe(400)
    expect((await sandbox.control(`/tokens/${token.body.token}`, { method: 'DELETE' })).status).toBe(204)
    expect((await sandbox.api('/1/members/me', token.body.token, { key: app.body.key })).text).toBe(
      'invalid token',
    )
  })
})

describe('act', () => {
  it('performs a request as another member, recorded as theirs', async () => {
    const moved = await sandbox.act('grace', 'PUT', `/1/cards/${SEED.cards.login.id}`, {
      idList: SEED.lists.doing.id,
    })
    expect(moved.status).toBe(200)
    expect(moved.body.idList).toBe(SEED.lists.doing.id)
    const token = await sandbox.token('ada')
    const [action] = (await sandbox.api(`/1/cards/${SEED.cards.login.id}/actions`, token)).body
    expect(action).toMatchObject({
      type: 'updateCard',
      idMemberCreator: SEED.members.grace.id,
      appCreator: null,
    })
    const missing = await sandbox.act('grace', 'GET', `/1/cards/${'0'.repeat(24)}`)
    expect(missing).toEqual({ status: 404, body: 'Could not find the card' })
    const query = await sandbox.act('ada', 'GET', '/1/boards/Rdmp2024/cards?fields=name', { filter: 'all' })
    expect(query.body).toHaveLength(4)
    expect((await sandbox.control('/act', { body: { member: 'ada', path: '/elsewhere' } })).status).toBe(400)
  })
})

describe('request log', () => {
  it('keeps API requests with secrets redacted', async () => {
    const token = await sandbox.token('ada')
    await sandbox.control('/requests', { method: 'DELETE' })
    await sandbox.api('/1/members/me?fields=username', token)
    await call(`${sandbox.url}/1/tokens/${token}/webhooks?key=${KEY}&token=${token}`)
    await call(`${sandbox.url}/1/members/me`, {
      headers: { authorization: `OAuth oauth_consumer_key="${KEY}", oauth_token="${token}"` },
    })
    const log = (await sandbox.control('/requests')).body.requests
    expect(log).toHaveLength(3)
    expect(log[0]).toMatchObject({
      method: 'GET',
      path: '/trello/1/members/me',
      query: { fields: 'username', key: '[redacted]', token: '[redacted]' },
      status: 200,
      fault: null,
    })
    expect(log[1].path).toBe('/trello/1/tokens/[redacted]/webhooks')
    expect(log[2].headers.authorization).toBe('OAuth [redacted]')
    expect(JSON.stringify(log)).not.toContain(token)
    expect((await sandbox.control('/requests?limit=1')).body.requests).toHaveLength(1)
  })
})

describe('clock, settings, errors', () => {
  it('moves the clock and validates settings', async () => {
    const before = (await sandbox.control('/clock')).body.now_ms
    const after = (await sandbox.control('/clock', { body: { advance_ms: 60_000 } })).body.now_ms
    expect(after - before).toBeGreaterThanOrEqual(60_000)
    expect((await sandbox.control('/clock', { body: { now: '2030-01-01T00:00:00.000Z' } })).body.now).toMatch(
      /^2030-01-01T00:00:0/,
    )
    expect((await sandbox.control('/clock', { body: { advance_ms: -1 } })).status).toBe(400)
    const token = await sandbox.token('ada')
    const card = await sandbox.api('/1/cards', token, {
      form: { idList: SEED.lists.todo.id, name: 'Future' },
    })
    expect(card.body.dateLastActivity).toMatch(/^2030-01-01T/)
    expect(parseInt(card.body.id.slice(0, 8), 16)).toBeGreaterThanOrEqual(Date.UTC(2030, 0, 1) / 1000)

    expect((await sandbox.control('/delivery-settings')).body).toEqual({
      retry_delays_ms: [1000, 5000, 30000],
      timeout_ms: 10000,
      callback_check_timeout_ms: 5000,
    })
    expect(
      (await sandbox.control('/delivery-settings', { method: 'PUT', body: { retry_delays_ms: [-1] } }))
        .status,
    ).toBe(400)
    expect(
      (await sandbox.control('/delivery-settings', { method: 'PUT', body: { retry_delays_ms: [] } })).body
        .retry_delays_ms,
    ).toEqual([])
  })

  it('answers unknown routes and methods in its own JSON', async () => {
    expect(await sandbox.control('/nope')).toMatchObject({ status: 404, body: { error: 'not_found' } })
    expect(await sandbox.control('/reset')).toMatchObject({
      status: 405,
      body: { error: 'method_not_allowed' },
    })
    const bad = await call(`${sandbox.url}/_control/members`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[1',
    })
    expect(bad.status).toBe(400)
  })

  it('reset restores the seed', async () => {
    const token = await sandbox.token('ada')
    await sandbox.api(`/1/cards/${SEED.cards.ship.id}`, token, { method: 'DELETE' })
    await sandbox.control('/reset', { body: {} })
    expect((await sandbox.act('ada', 'GET', `/1/cards/${SEED.cards.ship.id}`)).status).toBe(200)
    expect((await sandbox.api('/1/members/me', token)).text).toBe('invalid token')
  })
})

describe('developer page /app-key', () => {
  it('signs in, lists apps with keys and secrets, registers a new app', async () => {
    const page = await fetch(`${sandbox.url}/app-key`)
    const signIn = parseForm(await page.text())
    expect(signIn.action).toBe(`${sandbox.url}/app-key`)
    const wrong = await postForm(signIn.action, {
      ...signIn.fields,
      email: 'ada@trello.test',
      password: 'bad',
    })
    expect(await wrong.text()).toContain('Incorrect email address')

    const dashboard = await postForm(signIn.action, {
      ...signIn.fields,
      email: 'ada@trello.test',
      password: PASSWORD,
    })
    const html = await dashboard.text()
    expect(html).toContain(`<code class="key">${KEY}</code>`)
    expect(html).toContain(`<code class="secret">${SEED.app.secret}</code>`)
    const create = parseForm(html)
    expect(create.fields.step).toBe('create')
    const created = await postForm(create.action, {
      ...create.fields,
      name: 'Ada bot',
      allowed_origins: 'https://ada.example\nhttp://localhost:*',
    })
    const createdHtml = await created.text()
    const key = /<code id="key">([0-9a-f]{32})<\/code>/.exec(createdHtml)?.[1]
    const secret = /<code id="secret">([0-9a-f]{64})<\/code>/.exec(createdHtml)?.[1]
    expect(key).toBeDefined()
    expect(secret).toBeDefined()
    const apps = (await sandbox.control('/apps')).body.apps
    expect(apps.find((a: { key: string }) => a.key === key)).toMatchObject({
      name: 'Ada bot',
      owner: 'ada',
      secret,
      allowed_origins: ['https://ada.example', 'http://localhost:*'],
    })
    // The new key works on the authorize page straight away.
    expect(
      (await call(`${sandbox.url}/1/authorize?key=${key}&return_url=https://ada.example/cb`)).status,
    ).toBe(200)

    const cookie = (dashboard.headers.get('set-cookie') ?? '').split(';')[0]!
    const again = await fetch(`${sandbox.url}/app-key`, { headers: { cookie } })
    expect(await again.text()).toContain('Ada bot')
  })
})
