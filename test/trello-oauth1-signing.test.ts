import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectTrelloOAuth } from './helpers/connect-trello.ts'
import { client } from './helpers/stack.ts'

// An OAuth 1.0a integration signs every API Call as RFC 5849 §3.4.1 says, so the platform accepts
// any query the caller writes: percent-encoded names included (the Trello sandbox verifies as Trello).
let stack: TestStack
let integration: string
beforeAll(async () => {
  stack = await startTestStack()
  integration = (await connectTrelloOAuth(stack)).integrationId!
})
afterAll(async () => {
  await stack?.close()
})

describe('OAuth 1.0a signatures hold for any query through the API Call', () => {
  it.each([
    '/1/members/me?@x',
    '/1/members/me?%C3%A9=1',
    '/1/members/me?a%2Fb=1',
    '/1/members/me?fields=username&a+b=c+d&x=%3D%26',
    '/1/members/me?fields=username&x=2&x=1',
  ])('GET %s is accepted', async (endpoint) => {
    const { status, body } = await client(stack, stack.apiKey).run('trello.api_call', integration, {
      method: 'GET',
      endpoint,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.output.status).toBe(200)
    expect(body.output.body.username).toBe('ada')
  })

  it('a query given as an object is signed the same way', async () => {
    const { status, body } = await client(stack, stack.apiKey).run('trello.api_call', integration, {
      method: 'GET',
      endpoint: '/1/members/me',
      query: { 'é/@': 'ü =&', fields: 'username' },
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.output.body.username).toBe('ada')
  })
})
