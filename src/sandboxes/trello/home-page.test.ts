import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from './seed.ts'
import {
  GRACE,
  postForm,
  settledDeliveries,
  startReceiver,
  startTestSandbox,
  type Receiver,
  type TestSandbox,
} from './test-support.ts'
import { homeFormToken, submitHomeForm, unreadableRefusal } from '../kit/test-support.ts'

// The home page (docs/sandbox.md "Home pages"): a newcomer changes a card as another member through
// plain forms, and the change reaches the API, the actions and the webhooks exactly as an API change.

let sandbox: TestSandbox
let receiver: Receiver
let token: string
const { board, cards, lists } = SEED

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
  await sandbox.control('/delivery-settings', { method: 'PUT', body: { retry_delays_ms: [10, 20, 30] } })
  token = await sandbox.token('ada')
  receiver = await startReceiver()
  const hooked = await sandbox.api('/1/webhooks', token, {
    form: { callbackURL: receiver.url, idModel: board.id },
  })
  expect(hooked.status).toBe(200)
})
afterEach(() => receiver.close())

const formToken = () => homeFormToken(sandbox.url)
const submit = (fields: Record<string, string>) => submitHomeForm(sandbox.url, fields)

/** The actions the webhook receiver was sent, once every delivery has settled, each delivered. */
async function deliveredActions(): Promise<any[]> {
  const deliveries = await settledDeliveries(sandbox)
  expect(deliveries.every((d: any) => d.state === 'delivered')).toBe(true)
  return receiver.received.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body).action)
}

describe('the Trello home page', () => {
  it('lists the members, boards, lists and cards, with a form per change acting as Grace by default', async () => {
    const answer = await fetch(sandbox.url)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/)
    expect(answer.headers.get('access-control-allow-origin')).toBeNull()
    const html = await answer.text()
    for (const text of ['Grace Hopper', 'Ada Lovelace', board.name, lists.todo.name, cards.api.name])
      expect(html).toContain(text)
    for (const step of ['create', 'move', 'comment', 'archive']) expect(html).toContain(`value="${step}"`)
    expect(html).toContain(`<option value="${GRACE.username}" selected>`)
    expect(html).toContain('name="viewport"')
  })

  it('creates a card as Grace: 303 back with a confirmation, the card in the API, and a createCard webhook by Grace', async () => {
    const done = await submit({
      step: 'create',
      member: 'grace',
      list: lists.doing.id,
      name: 'From the page',
    })
    expect(done.status).toBe(303)
    expect(done.location).toMatch(new RegExp(`^${sandbox.url}\\?done=`))
    expect(done.page).toContain('Grace Hopper created card “From the page” in Doing.')
    const onList = await sandbox.api(`/1/lists/${lists.doing.id}/cards`, token)
    expect(onList.body.map((c: any) => c.name)).toContain('From the page')
    const action = (await deliveredActions()).find((a: any) => a.type === 'createCard')
    expect(action).toMatchObject({ idMemberCreator: GRACE.id, data: { card: { name: 'From the page' } } })
  })

  it('moves, comments on and archives a card as Grace, each seen by the API and delivered to the webhook', async () => {
    expect(
      (await submit({ step: 'move', member: 'grace', card: cards.login.id, list: lists.done.id })).page,
    ).toContain('Grace Hopper moved card “Fix login bug” to Done.')
    expect(
      (await submit({ step: 'comment', member: 'grace', card: cards.login.id, text: 'On it' })).page,
    ).toContain('Grace Hopper commented on card “Fix login bug”.')
    expect((await submit({ step: 'archive', member: 'grace', card: cards.login.id })).page).toContain(
      'Grace Hopper archived card “Fix login bug”.',
    )
    const card = (await sandbox.api(`/1/cards/${cards.login.id}`, token)).body
    expect(card).toMatchObject({ idList: lists.done.id, closed: true })
    const comments = await sandbox.api(`/1/cards/${cards.login.id}/actions`, token, {})
    expect(comments.body.map((a: any) => a.data?.text)).toContain('On it')
    const actions = await deliveredActions()
    const byGrace = actions.filter((a: any) => a.idMemberCreator === GRACE.id).map((a: any) => a.type)
    expect(byGrace).toEqual(['updateCard', 'commentCard', 'updateCard'])
    expect(actions.find((a: any) => a.data?.listAfter)?.data.listAfter.id).toBe(lists.done.id)
  })

  it('shows card names as text, never as markup', async () => {
    const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>'
    const done = await submit({ step: 'create', member: 'grace', list: lists.todo.id, name: hostile })
    expect(done.status).toBe(303)
    expect(done.page).not.toContain('<script>alert(1)')
    expect(done.page).not.toContain('<img src=x')
    expect(done.page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })

  const refusals: Array<[string, Record<string, string>, number, RegExp]> = [
    ['an unknown step', { step: 'delete', member: 'grace' }, 400, /step must be one of/],
    ['no member', { step: 'create', list: lists.todo.id, name: 'x' }, 400, /member is required/],
    [
      'an unknown member',
      { step: 'create', member: 'mallory', list: lists.todo.id, name: 'x' },
      404,
      /No member &quot;mallory&quot;/,
    ],
    [
      'a card without a name',
      { step: 'create', member: 'grace', list: lists.todo.id, name: '  ' },
      400,
      /name is required/,
    ],
    ['a card without a list', { step: 'create', member: 'grace', name: 'x' }, 400, /list is required/],
    ['an unknown list', { step: 'create', member: 'grace', list: 'f'.repeat(24), name: 'x' }, 404, /No list/],
    [
      'a move of an unknown card',
      { step: 'move', member: 'grace', card: 'nope', list: lists.todo.id },
      404,
      /No card &quot;nope&quot;/,
    ],
    [
      'a comment without text',
      { step: 'comment', member: 'grace', card: cards.api.id },
      400,
      /text is required/,
    ],
    ['an archive without a card', { step: 'archive', member: 'grace' }, 400, /card is required/],
  ]
  it.each(refusals)('refuses %s with a page naming the reason', async (_what, fields, status, reason) => {
    const refused = await submit(fields)
    expect(refused.status).toBe(status)
    expect(refused.location).toBeNull()
    expect(refused.page).toMatch(reason)
    expect(unreadableRefusal(refused.page, sandbox.url)).toEqual([])
  })

  it('refuses a form without the page secret, or posted from another site, and changes nothing', async () => {
    const fields = { step: 'archive', member: 'grace', card: cards.api.id }
    const noSecret = await postForm(sandbox.url, fields)
    expect(noSecret.status).toBe(403)
    const forged = await postForm(sandbox.url, { ...fields, form_token: 'guess' })
    expect(forged.status).toBe(403)
    const crossSite = await postForm(
      sandbox.url,
      { ...fields, form_token: await formToken() },
      { origin: 'http://evil.example' },
    )
    expect(crossSite.status).toBe(403)
    expect(unreadableRefusal(await crossSite.text(), sandbox.url)).toEqual([])
    expect((await sandbox.api(`/1/cards/${cards.api.id}`, token)).body.closed).toBe(false)
  })

  it('refuses a body that is not a form with a 400 page naming the reason', async () => {
    const answer = await fetch(sandbox.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        form_token: await formToken(),
        step: 'archive',
        member: 'grace',
        card: cards.api.id,
      }),
    })
    expect(answer.status).toBe(400)
    const page = await answer.text()
    expect(page).toContain('The form was not sent as a web form (application/x-www-form-urlencoded).')
    expect(unreadableRefusal(page, sandbox.url)).toEqual([])
  })

  it('ignores a confirmation id it did not issue', async () => {
    const html = await (await fetch(`${sandbox.url}?done=${encodeURIComponent('<b>hacked</b>')}`)).text()
    expect(html).not.toContain('hacked')
    expect(html).not.toContain('id="done"')
  })
})
