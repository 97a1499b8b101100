import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SESSION_COOKIE } from '../src/server/auth.ts'
import { SSO_STATE_COOKIE } from '../src/server/routes/sso.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// Single sign-on with OpenID Connect against the identity provider sandbox (oidc-provider, mounted at
// /oidc on the sandbox port), over real HTTP: the flow a browser follows, redirect by redirect.
let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(async () => {
  await stack?.close()
})

/** A browser's cookies, one jar per browser (cookies are per host, whatever the port, as in a browser). */
class Browser {
  readonly cookies = new Map<string, string>()
  async get(url: string, init: RequestInit = {}): Promise<Response> {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: this.cookieHeader() },
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';')
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]
      const expired = attributes.some((a) => /max-age=0|expires=thu, 01 jan 1970/i.test(a.trim()))
      if (expired || value === '') this.cookies.delete(name.trim())
      else this.cookies.set(name.trim(), value)
    }
    return response
  }
  cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }
}

const locationOf = (response: Response, base: string) => new URL(response.headers.get('location')!, base).href

/** From Switchyard's start to the identity provider's sign-in page; answers that page's address. */
async function toSignInPage(browser: Browser, next = '/agents') {
  const start = await browser.get(`${stack.url}/v1/sso/start?${new URLSearchParams({ next })}`)
  expect(start.status).toBe(303)
  const authorize = locationOf(start, stack.url)
  expect(authorize.startsWith(`${stack.sandboxUrl}/oidc/`)).toBe(true)
  const params = new URL(authorize).searchParams
  expect(params.get('code_challenge_method')).toBe('S256')
  expect(params.get('code_challenge')).toBeTruthy()
  expect(params.get('nonce')).toBeTruthy()
  const interaction = await browser.get(authorize)
  expect(interaction.status).toBe(303)
  return locationOf(interaction, authorize)
}

/** Chooses `person` on the sign-in page; answers Switchyard's callback address the provider sends back to. */
async function chooseOnSignInPage(browser: Browser, page: string, person: string) {
  const html = await (await browser.get(page)).text()
  const action = new URL(/action="([^"]+)"/.exec(html)![1].replace(/&amp;/g, '&'), page).href
  let response = await browser.get(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ person }).toString(),
  })
  let at = action
  while (response.status === 303 || response.status === 302) {
    const next = locationOf(response, at)
    if (next.startsWith(stack.url)) return next
    response = await browser.get(next)
    at = next
  }
  throw new Error(`the provider answered ${response.status} instead of sending the browser back`)
}

describe('single sign-on with the identity provider sandbox', () => {
  it('signs a person of an admitted domain in, on that domain’s plan, and lands on the page they asked for', async () => {
    const browser = new Browser()
    const page = await toSignInPage(browser, '/agents?tab=1')
    const callback = await chooseOnSignInPage(browser, page, 'idp-ada')
    const done = await browser.get(callback)
    expect(done.status).toBe(303)
    expect(done.headers.get('location')).toBe('/agents?tab=1')
    expect(browser.cookies.get(SESSION_COOKIE)).toBeTruthy()
    expect(browser.cookies.has(SSO_STATE_COOKIE)).toBe(false)
    const me = await (await browser.get(`${stack.url}/v1/me`)).json()
    expect(me).toMatchObject({
      email: 'ada@example.test',
      name: 'Ada Lovelace',
      plan: 'free',
      role: 'member',
    })
    const sessions = await (await browser.get(`${stack.url}/v1/me/sessions`)).json()
    expect(sessions.sessions[0]).toMatchObject({ method: 'sso', current: true })
    // The same callback again (a replay from the history) signs no one in.
    const replay = new Browser()
    replay.cookies.set(SSO_STATE_COOKIE, new URL(callback).searchParams.get('state')!)
    const again = await replay.get(callback)
    expect(again.headers.get('location')).toMatch(/^\/login\?sso_error=/)
    expect(replay.cookies.has(SESSION_COOKIE)).toBe(false)
  })

  it('login CSRF: a callback reaching a browser that did not start the sign-in signs no one in', async () => {
    // The attacker signs in as themselves and stops before their own callback…
    const attacker = new Browser()
    const callback = await chooseOnSignInPage(attacker, await toSignInPage(attacker), 'idp-grace')
    // …and makes the victim's browser open it.
    const victim = new Browser()
    const answer = await victim.get(callback)
    expect(answer.status).toBe(303)
    const location = answer.headers.get('location')!
    expect(new URLSearchParams(location.split('?')[1]).get('sso_error')).toMatch(
      /not started in this browser/,
    )
    expect(victim.cookies.has(SESSION_COOKIE)).toBe(false)
  })

  it.each([
    ['an absolute URL', 'https://evil.example/steal'],
    ['a protocol-relative URL', '//evil.example/steal'],
    ['a backslash trick', '/\\evil.example/steal'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['an encoded newline', '/agents\r\nLocation: https://evil.example'],
  ])('open redirect: a next of %s lands on this site instead', async (_label, next) => {
    const browser = new Browser()
    const callback = await chooseOnSignInPage(browser, await toSignInPage(browser, next), 'idp-ada')
    const done = await browser.get(callback)
    expect(done.status).toBe(303)
    expect(done.headers.get('location')).toBe('/integrations')
  })

  it.each([
    ['a domain no rule admits', 'idp-mallory', /elsewhere\.test is not a domain that may join/],
    ['an email the provider did not verify', 'idp-eve', /did not confirm your email address/],
    ['an email the provider says nothing about verifying', 'idp-una', /did not confirm your email address/],
  ])('refuses %s, with the reason on the sign-in page', async (_label, person, reason) => {
    const browser = new Browser()
    const callback = await chooseOnSignInPage(browser, await toSignInPage(browser), person)
    const answer = await browser.get(callback)
    const location = answer.headers.get('location')!
    expect(location.startsWith('/login?')).toBe(true)
    expect(new URLSearchParams(location.slice('/login?'.length)).get('sso_error')).toMatch(reason)
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false)
  })

  it('an existing account is matched by its verified email, keeping its plan and role', async () => {
    const existing = await stack.services.users.create({
      email: 'grace@example.test',
      plan: 'enterprise',
      role: 'admin',
    })
    const browser = new Browser()
    const callback = await chooseOnSignInPage(browser, await toSignInPage(browser), 'idp-grace')
    await browser.get(callback)
    const me = await (await browser.get(`${stack.url}/v1/me`)).json()
    expect(me).toMatchObject({ id: existing.id, plan: 'enterprise', role: 'admin' })
  })

  it.each([
    ['says is not verified', 'idp-eve', 'eve@example.test'],
    ['says nothing about', 'idp-una', 'una@example.test'],
  ])('an email the provider %s never signs in to the account that has it', async (_label, person, email) => {
    // The account exists (an admin, the worst case): whoever controls the provider's record could
    // claim the address without owning it, so a match by email must come with its verification.
    const existing = await stack.services.users.create({ email, plan: 'enterprise', role: 'admin' })
    const browser = new Browser()
    const callback = await chooseOnSignInPage(browser, await toSignInPage(browser), person)
    const answer = await browser.get(callback)
    const location = answer.headers.get('location')!
    expect(new URLSearchParams(location.slice('/login?'.length)).get('sso_error')).toMatch(
      /did not confirm your email address/,
    )
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(false)
    expect((await browser.get(`${stack.url}/v1/me`)).status).toBe(401)
    expect(await stack.services.sessions.list(existing.id)).toEqual([])
  })

  it('session fixation: the session a browser brought is ended, not kept, by signing in', async () => {
    const planted = await stack.services.sessions.create(stack.userId)
    const browser = new Browser()
    browser.cookies.set(SESSION_COOKIE, planted.id)
    const callback = await chooseOnSignInPage(browser, await toSignInPage(browser), 'idp-ada')
    await browser.get(callback)
    expect(browser.cookies.get(SESSION_COOKIE)).not.toBe(planted.id)
    expect(await stack.services.sessions.resolve(planted.id)).toBeUndefined()
  })
})
