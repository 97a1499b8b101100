import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from '../seed.ts'
import { startReceiver, startTestSandbox, type Receiver, type TestSandbox } from '../test-support.ts'

// The two reads a webhook consumer needs beyond creating hooks: one action by id (to confirm a
// delivery it cannot verify) and the member's tokens with their webhooks (to adopt a duplicate).
let sandbox: TestSandbox
let receiver: Receiver
let ada: string

const { board, cards, members } = SEED

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
  ada = await sandbox.token('ada')
  receiver = await startReceiver()
})
afterEach(() => receiver.close())

describe('GET /1/actions/{id}', () => {
  it('answers an action on a visible board, with its creator', async () => {
    const comment = await sandbox.api(`/1/cards/${cards.api.id}/actions/comments`, ada, {
      form: { text: 'hello' },
    })
    expect(comment.status).toBe(200)
    const answer = await sandbox.api(`/1/actions/${comment.body.id}`, ada)
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      id: comment.body.id,
      type: 'commentCard',
      idMemberCreator: members.ada.id,
      data: { text: 'hello', card: { id: cards.api.id }, board: { id: board.id } },
      memberCreator: { id: members.ada.id, username: 'ada' },
    })
    expect((await sandbox.api(`/1/actions/${comment.body.id}?fields=type`, ada)).body).toEqual({
      id: comment.body.id,
      type: 'commentCard',
    })
  })

  it('refuses a bad id, a missing action, and an action on a board the member cannot see', async () => {
    expect((await sandbox.api('/1/actions/nope', ada)).status).toBe(400)
    expect((await sandbox.api(`/1/actions/${'0'.repeat(24)}`, ada)).status).toBe(404)
    const made = await sandbox.act('grace', 'POST', '/1/boards', {
      name: 'Grace only',
      prefs_permissionLevel: 'private',
    })
    const actions = await sandbox.act('grace', 'GET', `/1/boards/${made.body.id}/actions`, {
      filter: 'createBoard',
    })
    expect(actions.body).toHaveLength(1)
    expect((await sandbox.api(`/1/actions/${actions.body[0].id}`, ada)).status).toBe(401)
  })
})

describe('GET /1/members/{id}/actions', () => {
  it('lists what a member did on boards the caller can see, filtered by type, newest first', async () => {
    const mine = await sandbox.api('/1/boards', ada, { form: { name: 'Mine' } })
    await sandbox.act('grace', 'POST', '/1/boards', { name: 'Grace only', prefs_permissionLevel: 'private' })
    const created = (await sandbox.api('/1/members/me/actions?filter=createBoard', ada)).body
    expect(created.map((a: { data: { board: { name: string } } }) => a.data.board.name)).toEqual([
      'Mine',
      'Roadmap',
    ])
    expect(created[0]).toMatchObject({
      type: 'createBoard',
      idMemberCreator: members.ada.id,
      data: { board: { id: mine.body.id } },
    })
    // Grace's private board stays hidden from ada; her comments on the shared board (one seeded) do not.
    await sandbox.act('grace', 'POST', `/1/cards/${cards.api.id}/actions/comments`, { text: 'seen' })
    const graces = (await sandbox.api(`/1/members/grace/actions?filter=createBoard,commentCard`, ada)).body
    expect(graces.map((a: { type: string }) => a.type)).toEqual(['commentCard', 'commentCard'])
  })
})

describe('GET /1/members/{id}/tokens', () => {
  it("lists the member's own tokens, with their webhooks when asked", async () => {
    const hook = await sandbox.api('/1/webhooks', ada, {
      form: { callbackURL: receiver.url, idModel: board.id, description: 'mine' },
    })
    expect(hook.status).toBe(200)
    const plain = await sandbox.api('/1/members/me/tokens', ada)
    expect(plain.status).toBe(200)
    expect(plain.body.length).toBeGreaterThanOrEqual(1)
    expect(plain.body[0]).not.toHaveProperty('webhooks')
    const withHooks = (await sandbox.api('/1/members/me/tokens?webhooks=true', ada)).body
    const hooks = withHooks.flatMap((t: { webhooks: unknown[] }) => t.webhooks)
    expect(hooks).toEqual([hook.body])
    expect(JSON.stringify(withHooks)).not.toContain(ada)
  })

  it("refuses another member's tokens", async () => {
    expect((await sandbox.api(`/1/members/${members.grace.id}/tokens`, ada)).status).toBe(401)
  })
})
