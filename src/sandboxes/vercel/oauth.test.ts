import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEED } from './index.ts'
import { call, parseForm, postForm, startTestSandbox, type TestSandbox } from './test-support.ts'

let sandbox: TestSandbox
const REDIRECT = 'http://localhost:5173/oauth/vercel/callback'

beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox.close())

const installUrl = (params: Record<string, string>) =>
  `${sandbox.url}/integrations/${SEED.integration.slug}/new?${new URLSearchParams(params)}`

/** Opens the install page, signs in as ada and returns the consent form. */
async function signInAndConsent(params: Record<string, string> = {}) {
  const page = await fetch(
    installUrl({
      state: 'st-123',
      redirect_uri: REDIRECT,
      client_id: SEED.integration.clientId,
      code_challenge: 'ignored',
      ...params,
    }),
  )
  expect(page.status).toBe(200)
  const html = await page.text()
  expect(html).toContain('name="email"')
  expect(html).toContain('name="password"')
  const login = parseForm(html)
  expect(login.fields).not.toHaveProperty('code_challenge')
  const signed = await postForm(login.action, {
    ...login.fields,
    email: SEED.user.email,
    password: SEED.password,
  })
  expect(signed.status).toBe(200)
  expect(signed.headers.get('set-cookie')).toMatch(/^vercel_sandbox_session=/)
  const consentHtml = await signed.text()
  expect(consentHtml).toContain('<select name="teamId">')
  expect(consentHtml).toContain('<button type="submit" name="decision" value="allow">')
  expect(consentHtml).toContain('<button type="submit" name="decision" value="deny">')
  return parseForm(consentHtml)
}

async function exchange(code: string, overrides: Record<string, string> = {}) {
  return call(`${sandbox.url}/v2/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: SEED.integration.clientId,
      client_secret: SEED.integration.clientSecret,
      code,
      redirect_uri: REDIRECT,
      ...overrides,
    }).toString(),
  })
}

describe('integration install flow', () => {
  it('personal account: allow → code + configurationId, no teamId; token works without teamId', async () => {
    const consent = await signInAndConsent()
    expect(consent.options).toEqual(['', SEED.team.id])
    const allowed = await postForm(consent.action, { ...consent.fields, teamId: '', decision: 'allow' })
    expect(allowed.status).toBe(302)
    const location = new URL(allowed.headers.get('location') as string)
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT)
    expect(location.searchParams.get('state')).toBe('st-123')
    expect(location.searchParams.get('configurationId')).toMatch(/^icfg_/)
    expect(location.searchParams.has('teamId')).toBe(false)
    const code = location.searchParams.get('code') as string

    const token = await exchange(code)
    expect(token.status).toBe(200)
    expect(token.body).toEqual({
      token_type: 'Bearer',
      access_token: expect.any(String),
      installation_id: location.searchParams.get('configurationId'),
      user_id: SEED.user.id,
      team_id: null,
    })
    const me = await call(`${sandbox.url}/v2/user`, { token: token.body.access_token })
    expect(me.status).toBe(200)
    expect(me.body.user).toMatchObject({
      id: SEED.user.id,
      username: 'ada',
      email: SEED.user.email,
      name: 'Ada Lovelace',
    })
    const projects = await call(`${sandbox.url}/v9/projects`, { token: token.body.access_token })
    expect(projects.body.projects.map((p: { name: string }) => p.name)).toEqual([SEED.personalProject.name])
  })

  it('team: allow → teamId on the redirect and team_id on the token; next is passed through', async () => {
    const consent = await signInAndConsent({ next: 'https://example.test/done' })
    const allowed = await postForm(consent.action, {
      ...consent.fields,
      teamId: SEED.team.id,
      decision: 'allow',
    })
    const location = new URL(allowed.headers.get('location') as string)
    expect(location.searchParams.get('teamId')).toBe(SEED.team.id)
    expect(location.searchParams.get('next')).toBe('https://example.test/done')
    const token = await exchange(location.searchParams.get('code') as string)
    expect(token.body.team_id).toBe(SEED.team.id)
    const projects = await call(`${sandbox.url}/v9/projects?teamId=${SEED.team.id}`, {
      token: token.body.access_token,
    })
    expect(projects.body.projects.map((p: { name: string }) => p.name)).toEqual([SEED.teamProject.name])
  })

  it('deny → redirect with error=access_denied and the state', async () => {
    const consent = await signInAndConsent()
    const denied = await postForm(consent.action, { ...consent.fields, decision: 'deny' })
    expect(denied.status).toBe(302)
    const location = new URL(denied.headers.get('location') as string)
    expect(location.searchParams.get('error')).toBe('access_denied')
    expect(location.searchParams.get('state')).toBe('st-123')
    expect(location.searchParams.has('code')).toBe(false)
  })

  it('a session cookie skips the sign-in form', async () => {
    const consent = await signInAndConsent()
    const page = await fetch(installUrl({ redirect_uri: REDIRECT }), {
      headers: { cookie: `vercel_sandbox_session=${consent.fields.session}` },
    })
    expect(await page.text()).toContain('<select name="teamId">')
  })

  it('wrong password re-renders the sign-in form with an error', async () => {
    const login = parseForm(await (await fetch(installUrl({ redirect_uri: REDIRECT }))).text())
    const bad = await postForm(login.action, { ...login.fields, email: SEED.user.email, password: 'nope' })
    expect(bad.status).toBe(401)
    expect(await bad.text()).toContain('Invalid email or password')
  })

  it('a code works once', async () => {
    const consent = await signInAndConsent()
    const allowed = await postForm(consent.action, { ...consent.fields, decision: 'allow' })
    const code = new URL(allowed.headers.get('location') as string).searchParams.get('code') as string
    expect((await exchange(code)).status).toBe(200)
    const again = await exchange(code)
    expect(again.status).toBe(400)
    expect(again.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringContaining('already been used'),
    })
  })

  it('a code expires after 30 minutes on the sandbox clock', async () => {
    const consent = await signInAndConsent()
    const allowed = await postForm(consent.action, { ...consent.fields, decision: 'allow' })
    const code = new URL(allowed.headers.get('location') as string).searchParams.get('code') as string
    await sandbox.advance(30 * 60 * 1000 + 1)
    const expired = await exchange(code)
    expect(expired.status).toBe(400)
    expect(expired.body.error).toBe('invalid_grant')
  })

  it('bad secret → 401 invalid_client; unknown code → 400 invalid_grant; missing field → 400 invalid_request; redirect mismatch → 400', async () => {
    const consent = await signInAndConsent()
    const allowed = await postForm(consent.action, { ...consent.fields, decision: 'allow' })
    const code = new URL(allowed.headers.get('location') as string).searchParams.get('code') as string
    const badSecret = await exchange(code, { client_secret: 'wrong' })
    expect(badSecret.status).toBe(401)
    expect(badSecret.body.error).toBe('invalid_client')
    expect((await exchange('not-a-code')).body.error).toBe('invalid_grant')
    const missing = await call(`${sandbox.url}/v2/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'client_id=x',
    })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({
      error: 'invalid_request',
      error_description: 'Missing required parameter: client_secret',
    })
    const mismatch = await exchange(code, { redirect_uri: 'http://localhost:1/other' })
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.error).toBe('invalid_grant')
    // The failed attempts did not burn the code.
    expect((await exchange(code)).status).toBe(200)
  })

  it('unknown slug or unregistered redirect_uri → an HTML error page, no redirect', async () => {
    const unknown = await fetch(
      `${sandbox.url}/integrations/nope/new?redirect_uri=${encodeURIComponent(REDIRECT)}`,
      { redirect: 'manual' },
    )
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('content-type')).toContain('text/html')
    expect(unknown.headers.get('location')).toBeNull()
    for (const uri of ['https://evil.example/cb', 'http://example.com/cb', 'not a url']) {
      const bad = await fetch(installUrl({ redirect_uri: uri }), { redirect: 'manual' })
      expect(bad.status).toBe(400)
      expect(bad.headers.get('location')).toBeNull()
      expect(await bad.text()).toContain('not registered')
    }
    const wrongClient = await fetch(installUrl({ redirect_uri: REDIRECT, client_id: 'oac_other' }), {
      redirect: 'manual',
    })
    expect(wrongClient.status).toBe(400)
    const loopback = await fetch(installUrl({ redirect_uri: 'http://127.0.0.1:9999/cb' }))
    expect(loopback.status).toBe(200)
  })

  it('a control-created integration accepts only its registered redirect URIs', async () => {
    const created = await sandbox.control('/integrations', {
      body: { slug: 'other', redirect_uris: ['https://app.example/cb'] },
    })
    expect(created.status).toBe(201)
    expect(
      (
        await fetch(
          `${sandbox.url}/integrations/other/new?redirect_uri=${encodeURIComponent('https://app.example/cb')}`,
        )
      ).status,
    ).toBe(200)
    expect(
      (await fetch(`${sandbox.url}/integrations/other/new?redirect_uri=${encodeURIComponent(REDIRECT)}`))
        .status,
    ).toBe(400)
  })
})
