import { afterAll, beforeAll, expect, it } from 'vitest'
import { startSandboxServer } from './server.ts'

// The sandbox port's root links every platform sandbox's home page (docs/sandbox.md "Home pages"),
// and only `/` changed: other unknown paths outside the prefixes still get the 404.

let server: Awaited<ReturnType<typeof startSandboxServer>>
beforeAll(async () => {
  server = await startSandboxServer()
})
afterAll(() => server.close())

it('answers / with a page linking the Trello, Zendesk and Vercel home pages and naming the model sandboxes', async () => {
  const answer = await fetch(`${server.url}/`)
  expect(answer.status).toBe(200)
  expect(answer.headers.get('content-type')).toMatch(/^text\/html/)
  const html = await answer.text()
  for (const prefix of ['/trello', '/zendesk', '/vercel']) expect(html).toContain(`<a href="${prefix}">`)
  expect(html).toContain('<code>/openai/v1</code>')
  expect(html).toContain('<code>/anthropic</code>')
  for (const prefix of ['/trello', '/zendesk', '/vercel'])
    expect((await fetch(`${server.url}${prefix}`)).status).toBe(200)
  expect((await fetch(`${server.url}/nothing-here`)).status).toBe(404)
})
