import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  ADA,
  GRACE,
  KEY,
  parseForm,
  PASSWORD,
  postForm,
  startTestSandbox,
  type TestSandbox,
} from '../test-support.ts'

/** The sign-in page's help for newcomers and the consent page's "Use another account". */

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
})

const authorizeUrl = (params: Record<string, string> = {}) =>
  `${sandbox.url}/1/authorize?${new URLSearchParams({ key: KEY, response_type: 'token', scope: 'read', expiration: '1day', ...params })}`

function listedEmails(html: string): string[] {
  const box =
    /<aside class="sandbox-accounts" id="sandbox-accounts">([\s\S]*?)<\/aside>/.exec(html)?.[1] ?? ''
  return [...box.matchAll(/<code class="email">([^<]*)<\/code>/g)].map((m) => m[1] as string)
}

describe('sign-in pages', () => {
  it('name the app and list the seeded members with the sandbox password', async () => {
    const html = await (await fetch(authorizeUrl({ name: 'My Agent' }))).text()
    expect(html).toContain('<h1>Log in to let My Agent use your account</h1>')
    expect(html).toContain('<h2>Sandbox accounts</h2>')
    expect(html).toContain(`<code class="password">${PASSWORD}</code>`)
    expect(listedEmails(html)).toEqual([ADA.email, GRACE.email])
    // Without a name argument the page names the registered app.
    expect(await (await fetch(authorizeUrl())).text()).toContain(
      '<h1>Log in to let Switchyard use your account</h1>',
    )
  })

  it('the developer page lists them too, and a sandbox started without the seed lists none', async () => {
    expect(listedEmails(await (await fetch(`${sandbox.url}/app-key`)).text())).toEqual([
      ADA.email,
      GRACE.email,
    ])
    const empty = await startTestSandbox({ seed: false })
    try {
      const html = await (await fetch(`${empty.url}/app-key`)).text()
      expect(html).toContain('name="password"')
      expect(html).not.toContain('Sandbox accounts')
    } finally {
      await empty.close()
    }
  })
})

describe('use another account', () => {
  it('signs ada out and lets grace sign in and be the one who allows', async () => {
    const signIn = parseForm(await (await fetch(authorizeUrl({ name: 'My Agent' }))).text())
    const consent = await postForm(signIn.action, { ...signIn.fields, email: ADA.email, password: PASSWORD })
    const cookie = (consent.headers.get('set-cookie') ?? '').split(';')[0]!
    const consentHtml = await consent.text()
    expect(consentHtml).toContain('Signed in as Ada Lovelace (@ada)')
    const switcher = parseForm(consentHtml, 1)
    expect(switcher.fields).toMatchObject({
      step: 'signout',
      key: KEY,
      name: 'My Agent',
      scope: 'read',
      expiration: '1day',
    })

    const signedOut = await postForm(switcher.action, switcher.fields, { cookie })
    expect(signedOut.status).toBe(200)
    expect(signedOut.headers.get('set-cookie')).toMatch(/^trello_sandbox_session=; .*Max-Age=0/)
    const again = await signedOut.text()
    expect(again).toContain('name="password"')
    expect(again).not.toContain('name="decision"')

    // Ada's session is over, by cookie and by hidden field alike.
    expect(await (await fetch(authorizeUrl(), { headers: { cookie } })).text()).toContain('name="password"')
    const stale = parseForm(consentHtml)
    expect(await (await postForm(stale.action, { ...stale.fields, decision: 'allow' })).text()).toContain(
      'Please log in again.',
    )

    // The same grant, now as grace.
    const form = parseForm(again)
    expect(form.fields).toMatchObject({
      step: 'signin',
      key: KEY,
      name: 'My Agent',
      scope: 'read',
      expiration: '1day',
    })
    const graceConsent = await postForm(form.action, {
      ...form.fields,
      email: GRACE.email,
      password: PASSWORD,
    })
    const graceHtml = await graceConsent.text()
    expect(graceHtml).toContain('Signed in as Grace Hopper (@grace)')
    const decide = parseForm(graceHtml)
    const done = await postForm(decide.action, { ...decide.fields, decision: 'allow' })
    const token = /<pre id="token">([0-9a-f]{64})<\/pre>/.exec(await done.text())?.[1]
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    expect((await sandbox.api('/1/members/me', token!)).body).toMatchObject({
      id: GRACE.id,
      username: 'grace',
    })
  })
})
