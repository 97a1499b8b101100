import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEED } from './index.ts'
import { call, parseForm, postForm, startTestSandbox, type TestSandbox } from './test-support.ts'

/** The install pop-up's look, its help for newcomers and "Use another account". */

let sandbox: TestSandbox
const REDIRECT = 'http://localhost:5173/oauth/vercel/callback'

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const installUrl = () =>
  `${sandbox.url}/integrations/${SEED.integration.slug}/new?${new URLSearchParams({ state: 'st-9', redirect_uri: REDIRECT, client_id: SEED.integration.clientId })}`

function listedEmails(html: string): string[] {
  const box =
    /<aside class="sandbox-accounts" id="sandbox-accounts">([\s\S]*?)<\/aside>/.exec(html)?.[1] ?? ''
  return [...box.matchAll(/<code class="email">([^<]*)<\/code>/g)].map((m) => m[1] as string)
}

const hasStylesheet = (html: string) =>
  /<head>[\s\S]*<style>body\{font-family:system-ui[\s\S]*<\/style><\/head>/.test(html)

async function signIn(email: string): Promise<{ html: string; cookie: string }> {
  const login = parseForm(await (await fetch(installUrl())).text())
  const signed = await postForm(login.action, { ...login.fields, email, password: SEED.password })
  expect(signed.status).toBe(200)
  return {
    html: await signed.text(),
    cookie: (signed.headers.get('set-cookie') ?? '').split(';')[0] as string,
  }
}

describe('install pop-up pages', () => {
  it('are styled like the other sandboxes: sign-in, consent and error pages alike', async () => {
    expect(hasStylesheet(await (await fetch(installUrl())).text())).toBe(true)
    expect(hasStylesheet((await signIn(SEED.user.email)).html)).toBe(true)
    expect(hasStylesheet(await (await fetch(`${sandbox.url}/integrations/nope/new`)).text())).toBe(true)
  })

  it('the sign-in form names the integration and lists the seeded users with the sandbox password', async () => {
    const html = await (await fetch(installUrl())).text()
    expect(html).toContain(
      `<strong id="app-name">${SEED.integration.name}</strong> wants to be added to your Vercel account`,
    )
    expect(html).toContain('<h2>Sandbox accounts</h2>')
    expect(html).toContain(`<code class="password">${SEED.password}</code>`)
    expect(listedEmails(html)).toEqual([SEED.user.email, SEED.member.email])
    // The webhook settings page signs in too, with no integration to name.
    const settings = await (await fetch(`${sandbox.url}/projects/ada-blog/settings/webhooks`)).text()
    expect(listedEmails(settings)).toEqual([SEED.user.email, SEED.member.email])
    expect(settings).not.toContain('id="app-name"')
  })

  it('a sandbox started without the seed lists no accounts', async () => {
    const empty = await startTestSandbox({ seed: false })
    try {
      const html = await (await fetch(`${empty.url}/projects/ada-blog/settings/webhooks`)).text()
      expect(html).toContain('name="password"')
      expect(html).not.toContain('Sandbox accounts')
    } finally {
      await empty.close()
    }
  })
})

describe('use another account', () => {
  it('signs ada out and lets grace sign in and be the one who allows', async () => {
    const first = await signIn(SEED.user.email)
    expect(first.html).toContain(`Signed in as ${SEED.user.email}.`)
    const switcher = parseForm(first.html, 1)
    expect(switcher.fields).toMatchObject({
      step: 'signout',
      state: 'st-9',
      redirect_uri: REDIRECT,
      client_id: SEED.integration.clientId,
    })

    const signedOut = await postForm(switcher.action, switcher.fields, { cookie: first.cookie })
    expect(signedOut.status).toBe(200)
    expect(signedOut.headers.get('set-cookie')).toMatch(/^vercel_sandbox_session=; .*Max-Age=0/)
    const loginHtml = await signedOut.text()
    expect(loginHtml).toContain('name="password"')
    expect(loginHtml).not.toContain('name="decision"')

    // Ada's session is over, by cookie and by hidden field alike.
    expect(await (await fetch(installUrl(), { headers: { cookie: first.cookie } })).text()).toContain(
      'name="password"',
    )
    const stale = parseForm(first.html)
    expect(await (await postForm(stale.action, { ...stale.fields, decision: 'allow' })).text()).toContain(
      'name="password"',
    )

    // The same request, now as grace.
    const login = parseForm(loginHtml)
    expect(login.fields).toMatchObject({
      step: 'login',
      state: 'st-9',
      redirect_uri: REDIRECT,
      client_id: SEED.integration.clientId,
    })
    const consent = await postForm(login.action, {
      ...login.fields,
      email: SEED.member.email,
      password: SEED.password,
    })
    const consentHtml = await consent.text()
    expect(consentHtml).toContain(`Signed in as ${SEED.member.email}.`)
    const form = parseForm(consentHtml)
    const allowed = await postForm(form.action, { ...form.fields, teamId: '', decision: 'allow' })
    expect(allowed.status).toBe(302)
    const location = new URL(allowed.headers.get('location') as string)
    expect(location.searchParams.get('state')).toBe('st-9')
    const token = await call(`${sandbox.url}/v2/oauth/access_token`, {
      form: {
        client_id: SEED.integration.clientId,
        client_secret: SEED.integration.clientSecret,
        code: location.searchParams.get('code') as string,
        redirect_uri: REDIRECT,
      },
    })
    expect(token.status).toBe(200)
    expect(token.body.user_id).toBe(SEED.member.id)
    expect((await call(`${sandbox.url}/v2/user`, { token: token.body.access_token })).body.user.email).toBe(
      SEED.member.email,
    )
  })
})
