import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED } from './seed.ts'
import { call, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
let token: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
  token = await sandbox.token('ada')
})

const fault = (body: Record<string, unknown>) => sandbox.control('/faults', { body })

describe('fault injection', () => {
  it('answers an injected status for `times` requests, then recovers', async () => {
    const added = await fault({ status: 503, times: 2 })
    expect(added.status).toBe(201)
    expect(added.body).toMatchObject({
      id: expect.any(String),
      kind: 'status_503',
      fault: { status: 503, remaining: 2 },
    })
    for (let i = 0; i < 2; i += 1) {
      const answer = await sandbox.api('/1/members/me', token)
      expect(answer.status).toBe(503)
      expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    }
    expect((await sandbox.api('/1/members/me', token)).status).toBe(200)
    expect((await sandbox.control('/faults')).body.faults).toEqual([])
  })

  it('matches on method and path', async () => {
    await fault({ status: 500, match: { method: 'post', path: '/1/cards' } })
    expect((await sandbox.api(`/1/cards/${SEED.cards.api.id}`, token)).status).toBe(200)
    expect((await sandbox.api('/1/cards', token, { form: { idList: SEED.lists.todo.id } })).status).toBe(500)
    expect(
      (await sandbox.api('/1/lists', token, { form: { idBoard: SEED.board.id, name: 'ok' } })).status,
    ).toBe(200)
  })

  it("forces Trello's 429 with an optional Retry-After", async () => {
    await fault({ rate_limit: { retry_after: 3 }, times: 1 })
    const answer = await sandbox.api('/1/members/me', token)
    expect(answer.status).toBe(429)
    expect(answer.body).toEqual({ error: 'API_TOKEN_LIMIT_EXCEEDED', message: 'Rate limit exceeded' })
    expect(answer.headers.get('retry-after')).toBe('3')
  })

  it('adds latency and drops connections', async () => {
    await fault({ latency_ms: 150, times: 1 })
    const started = Date.now()
    expect((await sandbox.api('/1/members/me', token)).status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)

    await fault({ drop: true, times: 1 })
    await expect(sandbox.api('/1/members/me', token)).rejects.toThrow()
    const log = (await sandbox.control('/requests')).body.requests
    expect(log.at(-1)).toMatchObject({ status: null, fault: 'drop' })
  })

  it('never touches the control API or the authorize pages, and can be removed', async () => {
    const added = await fault({ status: 500 })
    expect((await sandbox.control('/members')).status).toBe(200)
    expect((await call(`${sandbox.url}/1/authorize?key=${SEED.app.key}`)).status).toBe(200)
    expect((await sandbox.api('/1/members/me', token)).status).toBe(500)
    expect((await sandbox.control(`/faults/${added.body.id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await sandbox.api('/1/members/me', token)).status).toBe(200)
    expect((await sandbox.control('/faults/nope', { method: 'DELETE' })).status).toBe(404)
  })

  it.each([
    [{}, 'give at least one of'],
    [{ status: 200 }, 'status must be'],
    [{ latency_ms: -1 }, 'latency_ms must be'],
    [{ status: 500, times: 0 }, 'times must be'],
    [{ drop: 'yes' }, 'drop must be'],
  ])('refuses the fault %j', async (body, message) => {
    const answer = await fault(body)
    expect(answer.status).toBe(400)
    expect(answer.body.description).toContain(message)
  })
})
