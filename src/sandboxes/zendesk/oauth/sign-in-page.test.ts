import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SEED_CLIENT, SEED_PASSWORD } from '../seed.ts'
import {
  ADMIN,
  AGENT,
  bearer,
  call,
  CUSTOMER,
  parseForm,
  PASSWORD,
  postForm,
  startTestSandbox,
  type TestSandbox,
} from '../test-support.ts'

/** The sign-in page's help for newcomers and the consent page's "Use another account". */

const REDIRECT = 'http://127.0.0.1:8765/callback'

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
})

function authorizeUrl(subdomain = 'acme'): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: SEED_CLIENT.identifier,
    redirect_uri: REDIRECT,
    scope: 'read write',
    state: 'st-1',
  })
  return `${sandbox.base(subdomain)}/oauth/authorizations/new?${query}`
}

function accountsBox(html: string): string {
  return /<aside class="sandbox-accounts" id="sandbox-accounts">([\s\S]*?)<\/aside>/.exec(html)?.[1] ?? ''
}

async function signInAs(email: string): Promise<{ html: string; cookie: string }> {
  const signIn = parseForm(await (await fetch(authorizeUrl())).text())
  const consent = await postForm(signIn.action, { ...signIn.fields, email, password: PASSWORD })
  expect(consent.status).toBe(200)
  return {
    html: await consent.text(),
    cookie: (consent.headers.get('set-cookie') ?? '').split(';')[0] as string,
  }
}

describe('sign-in page', () => {
  it('names the app and lists the seeded users of the account with the sandbox password', async () => {
    const html = await (await fetch(authorizeUrl())).text()
    expect(html).toContain(`<strong id="app-name">${SEED_CLIENT.name}</strong> wants to connect`)
    const box = accountsBox(html)
    expect(box).toContain('<h2>Sandbox accounts</h2>')
    expect(box).toContain(`<code class="password">${SEED_PASSWORD}</code>`)
    const emails = [...box.matchAll(/<code class="email">([^<]*)<\/code>/g)].map((m) => m[1])
    expect(emails).toEqual([ADMIN, AGENT, CUSTOMER, 'erin@umbrella.test'])

    const globex = accountsBox(await (await fetch(authorizeUrl('globex'))).text())
    expect([...globex.matchAll(/<code class="email">([^<]*)<\/code>/g)].map((m) => m[1])).toEqual([
      'admin@globex.test',
    ])
  })

  it('leaves out users who cannot sign in with the sandbox password', async () => {
    const created = await sandbox.control('/accounts/acme/users', {
      body: { name: 'Own Password', email: 'own@acme.test', role: 'agent', password: 'elsewise' },
    })
    expect(created.status).toBe(201)
    expect(accountsBox(await (await fetch(authorizeUrl())).text())).not.toContain('own@acme.test')
  })
})

describe('use another account', () => {
  it('signs the first user out and lets a second seeded user sign in and be the one who allows', async () => {
    const first = await signInAs(AGENT)
    expect(first.html).toContain('Signed in as Alan Agent (agent@acme.test)')
    const switcher = parseForm(first.html, 1)
    expect(switcher.fields).toMatchObject({
      sign_out: '1',
      state: 'st-1',
      client_id: SEED_CLIENT.identifier,
      redirect_uri: REDIRECT,
    })

    const signedOut = await postForm(switcher.action, switcher.fields, { cookie: first.cookie })
    expect(signedOut.status).toBe(200)
    expect(signedOut.headers.get('set-cookie')).toMatch(/^zd_sandbox_session_acme=; .*Max-Age=0/)
    const signInHtml = await signedOut.text()
    expect(signInHtml).toContain('name="password"')
    expect(signInHtml).not.toContain('name="decision"')

    // The old session is gone: neither its cookie nor its hidden field lets the agent decide.
    expect(await (await fetch(authorizeUrl(), { headers: { cookie: first.cookie } })).text()).toContain(
      'name="password"',
    )
    const stale = parseForm(first.html)
    expect(await (await postForm(stale.action, { ...stale.fields, decision: 'allow' })).text()).toContain(
      'Your session has expired',
    )

    // The same authorization request, now as the admin.
    const signIn = parseForm(signInHtml)
    expect(signIn.fields).toMatchObject({
      state: 'st-1',
      client_id: SEED_CLIENT.identifier,
      redirect_uri: REDIRECT,
      scope: 'read write',
    })
    const consent = await postForm(signIn.action, { ...signIn.fields, email: ADMIN, password: PASSWORD })
    const consentHtml = await consent.text()
    expect(consentHtml).toContain('Signed in as Ada Admin (admin@acme.test)')
    const form = parseForm(consentHtml)
    const allowed = await postForm(form.action, { ...form.fields, decision: 'allow' })
    expect(allowed.status).toBe(302)
    const location = new URL(allowed.headers.get('location') as string)
    expect(location.searchParams.get('state')).toBe('st-1')
    const token = await call(`${sandbox.base('acme')}/oauth/tokens`, {
      json: {
        grant_type: 'authorization_code',
        code: location.searchParams.get('code'),
        client_id: SEED_CLIENT.identifier,
        client_secret: SEED_CLIENT.secret,
        redirect_uri: REDIRECT,
      },
    })
    expect(token.status).toBe(201)
    const me = await call(`${sandbox.base('acme')}/api/v2/users/me.json`, {
      auth: bearer(token.body.access_token),
    })
    expect(me.body.user.email).toBe(ADMIN)
  })
})
