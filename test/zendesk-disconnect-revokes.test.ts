import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, storedTokens } from './helpers/stack.ts'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => {
  await stack?.close()
})

describe('disconnecting a Zendesk integration', () => {
  it('revokes its access token at Zendesk, so a copy of the token stops working', async () => {
    const user = await stack.createUser()
    const { integrationId } = await connectZendesk({ url: stack.url, apiKey: user.apiKey })
    const tokens = await storedTokens(stack, integrationId!)
    const me = () =>
      fetch(`${stack.sandboxUrl}/zendesk/acme/api/v2/users/me.json`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      })
    expect((await me()).status).toBe(200)

    expect(
      (await client(stack, user.apiKey).post(`/v1/integrations/${integrationId}/disconnect`)).status,
    ).toBe(200)
    // Before the sandbox served DELETE /api/v2/oauth/tokens/current.json the revoke got 404, was
    // swallowed as best-effort, and the token kept working.
    const after = await me()
    expect(after.status).toBe(401)
    expect((await after.json()).error).toBe('invalid_token')
  })
})
