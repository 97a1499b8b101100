import { afterAll, beforeAll, expect, it } from 'vitest'
import { startSandboxServer } from './server.ts'

// The sandbox port's root links every platform sandbox's home page (docs/sandbox.md "Home pages") and
// the identity provider's, and only `/` changed: other unknown paths outside the prefixes still get the 404.

let server: Awaited<ReturnType<typeof startSandboxServer>>
beforeAll(async () => {
  server = await startSandboxServer()
})
afterAll(() => server.close())

it('answers / with a page linking the Trello, Zendesk, Vercel and identity provider home pages and naming the model sandboxes', async () => {
  const answer = await fetch(`${server.url}/`)
  expect(answer.status).toBe(200)
  expect(answer.headers.get('content-type')).toMatch(/^text\/html/)
  const html = await answer.text()
  for (const prefix of ['/trello', '/zendesk', '/vercel', '/oidc'])
    expect(html).toContain(`<a href="${prefix}">`)
  expect(html).toContain('<code>/openai/v1</code>')
  expect(html).toContain('<code>/anthropic</code>')
  for (const prefix of ['/trello', '/zendesk', '/vercel', '/oidc'])
    expect((await fetch(`${server.url}${prefix}`)).status).toBe(200)
  expect((await fetch(`${server.url}/nothing-here`)).status).toBe(404)
})

it('the identity provider home page lists its people, whether each email is verified, and how a client finds it', async () => {
  const html = await (await fetch(`${server.url}/oidc`)).text()
  expect(html).toContain('<h1>Identity provider sandbox</h1>')
  for (const [email, verified] of [
    ['ada@example.test', 'yes'],
    ['eve@example.test', 'no'],
    ['una@example.test', 'not stated'],
  ])
    expect(html).toMatch(new RegExp(`<code>${email}</code></td><td>${verified}</td>`))
  const issuer = `${server.url}/oidc`
  expect(html).toContain(`<code>${issuer}</code>`)
  // The provider's own routes are unchanged beside the page: discovery names the same issuer.
  const discovery = await fetch(`${issuer}/.well-known/openid-configuration`)
  expect(discovery.status).toBe(200)
  expect(((await discovery.json()) as { issuer: string }).issuer).toBe(issuer)
})
