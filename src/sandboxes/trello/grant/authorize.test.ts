import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  ADA,
  call,
  KEY,
  parseForm,
  parseForms,
  PASSWORD,
  postForm,
  signInAndConsent,
  startTestSandbox,
  type TestSandbox,
} from '../test-support.ts'

let sandbox: TestSandbox

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
})

const authorizeUrl = (params: Record<string, string>) =>
  `${sandbox.url}/1/authorize?${new URLSearchParams({ key: KEY, response_type: 'token', ...params })}`

async function allow(params: Record<string, string>): Promise<Response> {
  const consent = await signInAndConsent(authorizeUrl(params))
  return postForm(consent.action, { ...consent.fields, decision: 'allow' })
}

describe('/1/authorize', () => {
  it('signs in, names the app and scopes, and shows the token without return_url', async () => {
    const page = await fetch(authorizeUrl({ name: 'My Agent', scope: 'read,write', expiration: 'never' }))
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/text\/html/)
    const html = await page.text()
    const [signIn, signUp] = parseForms(html)
    expect(signIn?.action).toBe(`${sandbox.url}/1/authorize`)
    expect(signIn?.fields).toMatchObject({
      key: KEY,
      name: 'My Agent',
      scope: 'read,write',
      expiration: 'never',
      step: 'signin',
    })
    expect(signUp?.fields.step).toBe('signup')
    expect(html).toContain('name="email"')
    expect(html).toContain('name="password"')

    const consent = await postForm(signIn!.action, {
      ...signIn!.fields,
      email: ADA.email,
      password: PASSWORD,
    })
    const consentHtml = await consent.text()
    expect(consent.headers.get('set-cookie')).toMatch(/^trello_sandbox_session=/)
    expect(consentHtml).toContain('<strong id="app-name">My Agent</strong>')
    expect(consentHtml).toContain('data-scope="read"')
    expect(consentHtml).toContain('data-scope="write"')
    expect(consentHtml).not.toContain('data-scope="account"')
    expect(consentHtml).toContain('<button type="submit" name="decision" value="allow">')
    expect(consentHtml).toContain('<button type="submit" name="decision" value="deny">')

    const form = parseForm(consentHtml)
    const done = await postForm(form.action, { ...form.fields, decision: 'allow' })
    const token = /<pre id="token">([0-9a-f]{64})<\/pre>/.exec(await done.text())?.[1]
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    const me = await sandbox.api('/1/members/me', token!)
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ username: 'ada', fullName: 'Ada Lovelace', email: null })
  })

  it('accepts a wrong password only as a retry with an error', async () => {
    const signIn = parseForm(await (await fetch(authorizeUrl({}))).text())
    const again = await postForm(signIn.action, { ...signIn.fields, email: ADA.email, password: 'nope' })
    const html = await again.text()
    expect(html).toContain('role="alert"')
    expect(parseForm(html).fields.step).toBe('signin')
  })

  it('redirects to return_url#token=... with callback_method=fragment', async () => {
    const done = await allow({
      return_url: 'http://localhost:5173/callback',
      callback_method: 'fragment',
      scope: 'read',
    })
    expect(done.status).toBe(302)
    expect(done.headers.get('location')).toMatch(/^http:\/\/localhost:5173\/callback#token=[0-9a-f]{64}$/)
  })

  it('defaults to fragment when return_url comes without callback_method', async () => {
    const done = await allow({ return_url: 'http://127.0.0.1:9999/cb?x=1' })
    expect(done.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:9999\/cb\?x=1#token=[0-9a-f]{64}$/)
  })

  it('posts the token to the opener for callback_method=postMessage', async () => {
    const done = await allow({ return_url: 'http://localhost:3000/app/page', callback_method: 'postMessage' })
    expect(done.status).toBe(200)
    const html = await done.text()
    const found = /window\.opener\.postMessage\("([0-9a-f]{64})", "http:\/\/localhost:3000"\)/.exec(html)
    expect(found?.[1]).toMatch(/^[0-9a-f]{64}$/)
  })

  it('deny: fragment error, or a page saying so', async () => {
    const consent = await signInAndConsent(
      authorizeUrl({ return_url: 'http://localhost:5173/cb', callback_method: 'fragment' }),
    )
    const denied = await postForm(consent.action, { ...consent.fields, decision: 'deny' })
    expect(denied.status).toBe(302)
    expect(denied.headers.get('location')).toBe('http://localhost:5173/cb#error=access_denied')

    const page = await signInAndConsent(authorizeUrl({}))
    const shown = await postForm(page.action, { ...page.fields, decision: 'deny' })
    expect(await shown.text()).toContain('id="denied"')
  })

  it('creates an account on the way and authorizes as the new member', async () => {
    const html = await (await fetch(authorizeUrl({ scope: 'read,account' }))).text()
    const signUp = parseForm(html, 1)
    const bad = await postForm(signUp.action, {
      ...signUp.fields,
      fullName: 'Lin',
      username: 'x',
      email: 'lin@trello.test',
      password: 'secret1',
    })
    expect(await bad.text()).toContain('Username must be')
    const consent = await postForm(signUp.action, {
      ...signUp.fields,
      fullName: 'Lin Clark',
      username: 'lin',
      email: 'lin@trello.test',
      password: 'secret1',
    })
    const form = parseForm(await consent.text())
    const done = await postForm(form.action, { ...form.fields, decision: 'allow' })
    const token = /<pre id="token">([0-9a-f]{64})<\/pre>/.exec(await done.text())![1]!
    const me = await sandbox.api('/1/members/me', token)
    expect(me.body).toMatchObject({
      username: 'lin',
      fullName: 'Lin Clark',
      initials: 'LC',
      email: 'lin@trello.test',
    })
  })

  it('skips the sign-in with a session cookie', async () => {
    const signIn = parseForm(await (await fetch(authorizeUrl({}))).text())
    const consent = await postForm(signIn.action, { ...signIn.fields, email: 'ada', password: PASSWORD })
    const cookie = (consent.headers.get('set-cookie') ?? '').split(';')[0]!
    const again = await fetch(authorizeUrl({ name: 'Second' }), { headers: { cookie } })
    const html = await again.text()
    expect(html).toContain('name="decision" value="allow"')
    expect(parseForm(html).fields.session).toBeTruthy()
  })

  it.each([
    [{ key: 'ffffffffffffffffffffffffffffffff' }, 401, 'invalid key'],
    [{ key: '' }, 401, 'invalid key'],
    [{ return_url: 'https://evil.example/cb' }, 400, 'Invalid return_url'],
    [{ return_url: 'javascript:alert(1)' }, 400, 'Invalid return_url'],
    [{ scope: 'read,admin' }, 400, 'invalid scope'],
    [{ expiration: '2days' }, 400, 'invalid expiration'],
    [{ callback_method: 'popup', return_url: 'http://localhost:1/x' }, 400, 'invalid callback_method'],
  ])('refuses %j with %i %s', async (params, status, text) => {
    const answer = await call(authorizeUrl(params as Record<string, string>))
    expect(answer.status).toBe(status)
    expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(answer.text).toBe(text)
  })
})

describe('tokens from /1/authorize', () => {
  async function tokenFor(params: Record<string, string>): Promise<string> {
    const done = await allow(params)
    return /<pre id="token">([0-9a-f]{64})<\/pre>/.exec(await done.text())![1]!
  }

  it('expire with the sandbox clock', async () => {
    const token = await tokenFor({ expiration: '1hour' })
    expect((await sandbox.api('/1/members/me', token)).status).toBe(200)
    await sandbox.control('/clock', { body: { advance_ms: 59 * 60 * 1000 } })
    expect((await sandbox.api('/1/members/me', token)).status).toBe(200)
    await sandbox.control('/clock', { body: { advance_ms: 2 * 60 * 1000 } })
    const expired = await sandbox.api('/1/members/me', token)
    expect(expired.status).toBe(401)
    expect(expired.text).toBe('invalid token')
  })

  it('never tokens outlive a year', async () => {
    const token = await tokenFor({ expiration: 'never' })
    await sandbox.control('/clock', { body: { advance_ms: 400 * 24 * 3600 * 1000 } })
    expect((await sandbox.api('/1/members/me', token)).status).toBe(200)
  })

  it('a read-only token reads but may not write', async () => {
    const token = await tokenFor({ scope: 'read' })
    expect((await sandbox.api('/1/boards/Rdmp2024', token)).status).toBe(200)
    const write = await sandbox.api('/1/cards', token, {
      form: { idList: '659200805eed000000000011', name: 'Nope' },
    })
    expect(write.status).toBe(401)
    expect(write.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(write.text).toBe('unauthorized permission requested')
    const account = await sandbox.api('/1/notifications/all/read', token, { method: 'POST' })
    expect(account.text).toBe('unauthorized permission requested')
  })

  it('email is shown only with the account scope', async () => {
    const token = await tokenFor({ scope: 'read,account' })
    expect((await sandbox.api('/1/members/me', token)).body.email).toBe('ada@trello.test')
  })
})
