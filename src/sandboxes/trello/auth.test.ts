import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, KEY, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
let token: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  token = await sandbox.token('ada')
})
afterAll(() => sandbox.close())

const TEXT = 'text/plain; charset=utf-8'

describe('API credentials', () => {
  it('key and token as query parameters', async () => {
    const me = await call(`${sandbox.url}/1/members/me?key=${KEY}&token=${token}`)
    expect(me.status).toBe(200)
    expect(me.body.username).toBe('ada')
  })

  it('key and token in a form body or a JSON body', async () => {
    const form = await call(`${sandbox.url}/1/lists`, {
      form: { key: KEY, token, name: 'Form list', idBoard: '659200805eed000000000010' },
    })
    expect(form.status).toBe(200)
    const json = await call(`${sandbox.url}/1/lists`, {
      json: { key: KEY, token, name: 'JSON list', idBoard: '659200805eed000000000010' },
    })
    expect(json.status).toBe(200)
    expect(json.body.name).toBe('JSON list')
  })

  it('the unsigned OAuth header TrelloDotNet sends', async () => {
    const me = await call(`${sandbox.url}/1/members/me`, {
      headers: { authorization: `OAuth oauth_consumer_key="${KEY}", oauth_token="${token}"` },
    })
    expect(me.status).toBe(200)
    expect(me.body.username).toBe('ada')
  })

  it('answers CORS preflights and sets Access-Control-Allow-Origin', async () => {
    const preflight = await call(`${sandbox.url}/1/cards`, { method: 'OPTIONS' })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT')
    const me = await call(`${sandbox.url}/1/members/me?key=${KEY}&token=${token}`)
    expect(me.headers.get('access-control-allow-origin')).toBe('*')
  })
})

describe("Trello's plain-text errors", () => {
  it.each([
    ['no key at all', `/1/members/me?token=TOKEN`, 401, 'invalid key'],
    ['an unknown key', `/1/members/me?key=${'0'.repeat(32)}&token=TOKEN`, 401, 'invalid key'],
    ['a key without a token', `/1/members/me?key=${KEY}`, 401, 'unauthorized permission requested'],
    ['an unknown token', `/1/members/me?key=${KEY}&token=${'a'.repeat(64)}`, 401, 'invalid token'],
    ['a malformed token', `/1/members/me?key=${KEY}&token=ATTAxyz`, 401, 'invalid token'],
    ['a malformed card id', `/1/cards/not-an-id?key=${KEY}&token=TOKEN`, 400, 'invalid id'],
    ['a malformed board id', `/1/boards/12345?key=${KEY}&token=TOKEN`, 400, 'invalid id'],
    ['a missing card', `/1/cards/${'0'.repeat(24)}?key=${KEY}&token=TOKEN`, 404, 'Could not find the card'],
    ['a missing board', `/1/boards/${'0'.repeat(24)}?key=${KEY}&token=TOKEN`, 404, 'model not found'],
    ['a missing list', `/1/lists/${'0'.repeat(24)}?key=${KEY}&token=TOKEN`, 404, 'model not found'],
    ['an unknown member', `/1/members/nobody_here?key=${KEY}&token=TOKEN`, 404, 'model not found'],
    ['an unknown route', `/1/unicorns?key=${KEY}&token=TOKEN`, 404, 'The requested resource was not found.'],
    ['an unknown path outside /1', `/nothing`, 404, 'The requested resource was not found.'],
  ])('%s → %i %s', async (_, path, status, text) => {
    const answer = await call(`${sandbox.url}${path.replace('TOKEN', token)}`)
    expect(answer.status).toBe(status)
    expect(answer.headers.get('content-type')).toBe(TEXT)
    expect(answer.text).toBe(text)
  })

  it('a token minted for another key is invalid with this key', async () => {
    const other = await sandbox.control('/apps', { body: { name: 'Other', owner: 'ada' } })
    const foreign = await sandbox.token('ada', { key: other.body.key })
    expect((await call(`${sandbox.url}/1/members/me?key=${KEY}&token=${foreign}`)).text).toBe('invalid token')
    expect((await call(`${sandbox.url}/1/members/me?key=${other.body.key}&token=${foreign}`)).status).toBe(
      200,
    )
  })

  it('boards of other members are not visible (401)', async () => {
    const lin = await sandbox.control('/members', {
      body: { username: 'linus', fullName: 'Linus T', email: 'linus@trello.test' },
    })
    expect(lin.status).toBe(201)
    const linToken = await sandbox.token('linus')
    const answer = await sandbox.api('/1/boards/Rdmp2024', linToken)
    expect(answer.status).toBe(401)
    expect(answer.text).toBe('unauthorized permission requested')
    const card = await sandbox.api('/1/cards/Card0001', linToken)
    expect(card.text).toBe('unauthorized permission requested')
  })

  it('revoking a token makes it invalid', async () => {
    const doomed = await sandbox.token('grace')
    expect((await sandbox.api('/1/members/me', doomed)).status).toBe(200)
    expect((await sandbox.api(`/1/tokens/${doomed}`, doomed, { method: 'DELETE' })).status).toBe(200)
    expect((await sandbox.api('/1/members/me', doomed)).text).toBe('invalid token')
  })

  it('shows what a token may do', async () => {
    const readOnly = await sandbox.token('grace', { scope: 'read', expiration: '1day' })
    const info = await sandbox.api(`/1/tokens/${readOnly}`, readOnly)
    expect(info.status).toBe(200)
    expect(info.body).toMatchObject({
      identifier: 'Switchyard',
      idMember: '659200805eed000000000002',
      dateExpires: expect.stringMatching(/Z$/),
    })
    expect(info.body.permissions[0]).toEqual({ idModel: '*', modelType: 'Board', read: true, write: false })
    expect((await sandbox.api(`/1/tokens/${token}`, readOnly)).text).toBe('unauthorized token')
  })
})
