import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN, AGENT, basic, bearer, call, startTestSandbox, type TestSandbox } from '../test-support.ts'

let sandbox: TestSandbox
let acme: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  acme = sandbox.base('acme')
})
afterAll(() => sandbox.close())

describe('DELETE /api/v2/oauth/tokens/current.json', () => {
  it('revokes the bearer token that asks, and only it', async () => {
    const token = await sandbox.token('acme', AGENT)
    const other = await sandbox.token('acme', AGENT)
    const revoked = await call(`${acme}/api/v2/oauth/tokens/current.json`, {
      method: 'DELETE',
      auth: bearer(token),
    })
    expect(revoked.status).toBe(204)
    expect(revoked.body).toBeUndefined()

    const after = await call(`${acme}/api/v2/users/me.json`, { auth: bearer(token) })
    expect(after.status).toBe(401)
    expect(after.body.error).toBe('invalid_token')
    expect((await call(`${acme}/api/v2/users/me.json`, { auth: bearer(other) })).status).toBe(200)
  })

  it('has no current token to revoke for a request made with an API token', async () => {
    const minted = await sandbox.control('/accounts/acme/api_tokens', {
      body: { description: 'revoke test' },
    })
    const answer = await call(`${acme}/api/v2/oauth/tokens/current.json`, {
      method: 'DELETE',
      auth: basic(`${ADMIN}/token`, minted.body.api_token.token),
    })
    expect(answer.status).toBe(404)
    expect(answer.body).toEqual({ error: 'RecordNotFound', description: 'Not found' })
  })
})
