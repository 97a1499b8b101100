import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { BrowserLike } from './helpers/browser-like.ts'
import { completeConnect } from './helpers/connect.ts'
import { client } from './helpers/stack.ts'

// A connect link opened by someone else attaches their platform account to the link's creator; the
// page before the platform says whose Switchyard account that is (docs/security.md).
let stack: TestStack
let owner: { id: string; apiKey: string; email: string }
beforeAll(async () => {
  stack = await startTestStack()
  const created = await client(stack, stack.apiKey).post('/v1/users', {
    email: 'link.owner@example.test',
    plan: 'pro',
  })
  owner = { id: created.body.user.id, apiKey: created.body.api_key.key, email: created.body.user.email }
})
afterAll(async () => {
  await stack?.close()
})

async function connectLink(apiKey = owner.apiKey): Promise<string> {
  const start = await client(stack, apiKey).post('/v1/integrations/connect', {
    platform: 'zendesk',
    fields: { subdomain: 'acme' },
  })
  expect(start.status).toBe(201)
  return start.body.connect_url
}

const integrationsOf = async (apiKey: string) =>
  (await client(stack, apiKey).get('/v1/integrations')).body.integrations

describe('a connect link names its owner before the platform', () => {
  it('the page names the owner and the platform, with Continue and Cancel, and no script', async () => {
    const browser = new BrowserLike()
    const url = await connectLink()
    const page = await browser.get(url)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(page.headers.get('cache-control')).toBe('no-store')
    const html = await page.text()
    expect(html).toContain(
      'Connect a Zendesk account to <strong class="owner">link.owner@example.test</strong>?',
    )
    expect(html).toMatch(
      /<form method="post" action="\/oauth\/start\/[^"]+\/continue"><button[^>]*>Continue to Zendesk<\/button>/,
    )
    expect(html).toMatch(
      /<form method="post" action="\/oauth\/start\/[^"]+\/cancel"><button[^>]*>Cancel<\/button>/,
    )
    expect(html).not.toMatch(/<script|\son\w+=|style="/i)
    // Nothing went to the platform yet.
    expect(browser.visited.every((u) => u.startsWith(stack.url))).toBe(true)
    const css = await fetch(`${stack.url}/oauth/assets/confirm.css`)
    expect(css.headers.get('content-type')).toMatch(/^text\/css/)
  })

  it('the owner email is escaped in the page', async () => {
    const created = await client(stack, stack.apiKey).post('/v1/users', { email: "o'brien+x@example.test" })
    expect(created.status).toBe(201)
    const html = await (await new BrowserLike().get(await connectLink(created.body.api_key.key))).text()
    expect(html).toContain('o&#39;brien+x@example.test')
    expect(html).not.toContain("o'brien")
  })

  it('Cancel ends the flow: no integration, and the link is spent', async () => {
    const before = await integrationsOf(owner.apiKey)
    const url = await connectLink()
    const result = await completeConnect(url, { confirm: 'cancel' })
    expect(result.confirmation).toContain('link.owner@example.test')
    expect(await result.landingPage!.text()).toContain('Nothing was connected to link.owner@example.test')
    expect(result.browser.visited.every((u) => u.startsWith(stack.url))).toBe(true)
    expect(await integrationsOf(owner.apiKey)).toEqual(before)
    const again = await result.browser.follow(await result.browser.get(url), url)
    expect(new URL(again.url).searchParams.get('error')).toMatch(/expired or was already used/)
  })

  it('Continue goes on to the platform and connects the account to the owner', async () => {
    const result = await completeConnect(await connectLink(), { confirm: 'continue' })
    expect(result.confirmation).toContain('link.owner@example.test')
    expect(result.integrationId).toBeDefined()
    expect((await integrationsOf(owner.apiKey)).map((i: any) => i.id)).toContain(result.integrationId)
  })

  it('Continue posted from another site is refused and connects nothing', async () => {
    const browser = new BrowserLike()
    const url = await connectLink()
    expect((await browser.get(url)).status).toBe(200)
    const forged = await fetch(`${url}/continue`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: 'https://evil.example' },
    })
    expect(new URL(forged.headers.get('location')!, stack.url).searchParams.get('code')).toBe('forbidden')
    // Without the binding cookie (a cross-site POST never carries a SameSite=Lax cookie) it is refused too.
    const cookieless = await fetch(`${url}/continue`, { method: 'POST', redirect: 'manual' })
    expect(new URL(cookieless.headers.get('location')!, stack.url).searchParams.get('error')).toMatch(
      /another browser/,
    )
  })

  it('the owner, signed in in this browser, goes straight on to the platform', async () => {
    const browser = new BrowserLike()
    const signIn = await browser.request(`${stack.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: owner.apiKey }),
    })
    expect(signIn.status).toBe(204)
    const opened = await browser.get(await connectLink())
    expect(opened.status).toBe(302)
    expect(opened.headers.get('location')).toContain('/oauth/authorizations/new')
  })

  it('Cancel by the owner, signed in by then, goes back to the app with the message', async () => {
    const browser = new BrowserLike()
    const url = await connectLink()
    expect((await browser.get(url)).status).toBe(200)
    await browser.request(`${stack.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: owner.apiKey }),
    })
    const cancelled = await browser.post(`${url}/cancel`, {})
    expect(cancelled.status).toBe(303)
    const back = new URL(cancelled.headers.get('location')!, stack.url)
    expect(back.pathname).toBe('/integrations')
    expect(back.searchParams.get('error')).toMatch(/cancelled; nothing was connected/)
  })

  it('someone signed in as another user still sees whose account it is', async () => {
    const other = await stack.createUser()
    const browser = new BrowserLike()
    await browser.request(`${stack.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: other.apiKey }),
    })
    const opened = await browser.get(await connectLink())
    expect(opened.status).toBe(200)
    expect(await opened.text()).toContain('link.owner@example.test')
  })
})
