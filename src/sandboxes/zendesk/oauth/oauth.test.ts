import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT,
  basic,
  bearer,
  call,
  parseForm,
  PASSWORD,
  postForm,
  startTestSandbox,
  type TestSandbox,
} from '../test-support.ts'

const REDIRECT = 'http://127.0.0.1:8765/callback'
const CLIENT = { id: 'switchyard', secret: 'switchyard-sandbox-secret' }

let sandbox: TestSandbox
let acme: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  acme = sandbox.base('acme')
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
})

function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

function authorizeUrl(params: Record<string, string>): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT.id,
    redirect_uri: REDIRECT,
    scope: 'read write',
    state: 'xyz',
    ...params,
  })
  return `${acme}/oauth/authorizations/new?${query}`
}

/** Drives the pages like a browser without cookies: GET, sign in, decide. Returns the 302. */
async function authorize(
  params: Record<string, string> = {},
  options: { email?: string; password?: string; decision?: string } = {},
) {
  const page = await fetch(authorizeUrl(params))
  expect(page.status).toBe(200)
  const signIn = parseForm(await page.text())
  const consent = await postForm(signIn.action, {
    ...signIn.fields,
    email: options.email ?? AGENT,
    password: options.password ?? PASSWORD,
  })
  expect(consent.status).toBe(200)
  const html = await consent.text()
  expect(html).toContain('name="decision" value="allow"')
  const form = parseForm(html)
  const decided = await postForm(form.action, { ...form.fields, decision: options.decision ?? 'allow' })
  return decided
}

async function codeFrom(params: Record<string, string> = {}) {
  const response = await authorize(params)
  expect(response.status).toBe(302)
  const location = new URL(response.headers.get('location') as string)
  return location.searchParams.get('code') as string
}

function exchange(body: Record<string, unknown>) {
  return call(`${acme}/oauth/tokens`, {
    json: { client_id: CLIENT.id, client_secret: CLIENT.secret, redirect_uri: REDIRECT, ...body },
  })
}

describe('authorization-code flow', () => {
  it('signs in, allows, and exchanges the code with PKCE for a long-lived token (201)', async () => {
    const { verifier, challenge } = pkce()
    const response = await authorize({ code_challenge: challenge, code_challenge_method: 'S256' })
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get('location') as string)
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT)
    expect(location.searchParams.get('state')).toBe('xyz')
    const code = location.searchParams.get('code') as string
    expect(code).toMatch(/^[0-9a-f]{40}$/)

    const token = await exchange({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      scope: 'read write',
    })
    expect(token.status).toBe(201)
    expect(token.headers.get('cache-control')).toBe('no-store')
    expect(token.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      scope: 'read write',
      expires_in: null,
    })
    expect(await (await fetch(authorizeUrl({}))).text()).toContain('Switchyard')

    const me = await call(`${acme}/api/v2/users/me.json`, { auth: bearer(token.body.access_token) })
    expect(me.status).toBe(200)
    expect(me.body.user.email).toBe(AGENT)
  })

  it('accepts a form-encoded token request with HTTP Basic client authentication', async () => {
    const code = await codeFrom()
    const response = await fetch(`${acme}/oauth/tokens`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(CLIENT.id, CLIENT.secret),
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
      }).toString(),
    })
    expect(response.status).toBe(201)
    expect((await response.json()).token_type).toBe('bearer')
  })

  it('redirects access_denied with the state when the user denies', async () => {
    const response = await authorize({}, { decision: 'deny' })
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get('location') as string)
    expect(location.searchParams.get('error')).toBe('access_denied')
    expect(location.searchParams.get('error_description')).toBeTruthy()
    expect(location.searchParams.get('state')).toBe('xyz')
    expect(location.searchParams.has('code')).toBe(false)
  })

  it('shows the sign-in form again with an error on a wrong password', async () => {
    const page = await fetch(authorizeUrl({}))
    const form = parseForm(await page.text())
    const again = await postForm(form.action, { ...form.fields, email: AGENT, password: 'wrong' })
    expect(again.status).toBe(200)
    const html = await again.text()
    expect(html).toContain('Invalid email or password')
    expect(html).toContain('name="password"')
    expect(again.headers.get('set-cookie')).toBeNull()
    expect(parseForm(html).fields.client_id).toBe(CLIENT.id)
  })

  it.each([
    ['an unknown client_id', { client_id: 'nobody' }],
    ['a redirect_uri on another host', { redirect_uri: 'https://evil.example/cb' }],
    [
      'an https loopback redirect for the loopback-only client',
      { redirect_uri: 'https://127.0.0.1:8765/cb' },
    ],
  ])('answers %s with an error page and no redirect', async (_, params) => {
    const response = await fetch(authorizeUrl(params), { redirect: 'manual' })
    expect(response.status).toBe(400)
    expect(response.headers.get('location')).toBeNull()
    expect(response.headers.get('content-type')).toContain('text/html')
  })

  it('redirects protocol errors once the client and redirect are known', async () => {
    const response = await fetch(authorizeUrl({ response_type: 'token' }), { redirect: 'manual' })
    expect(response.status).toBe(302)
    expect(new URL(response.headers.get('location') as string).searchParams.get('error')).toBe(
      'unsupported_response_type',
    )
  })

  it('skips the sign-in form when the session cookie is presented', async () => {
    const page = await fetch(authorizeUrl({}))
    const form = parseForm(await page.text())
    const consent = await postForm(form.action, { ...form.fields, email: AGENT, password: PASSWORD })
    const cookie = (consent.headers.get('set-cookie') as string).split(';')[0] as string
    const again = await fetch(authorizeUrl({}), { headers: { cookie } })
    const html = await again.text()
    expect(html).toContain('name="decision" value="allow"')
    expect(html).not.toContain('name="password"')
  })
})

describe('token endpoint', () => {
  it('makes codes single-use and revokes what a replayed code issued', async () => {
    const code = await codeFrom()
    const first = await exchange({ grant_type: 'authorization_code', code })
    expect(first.status).toBe(201)
    const replay = await exchange({ grant_type: 'authorization_code', code })
    expect(replay.status).toBe(400)
    expect(replay.body.error).toBe('invalid_grant')
    const me = await call(`${acme}/api/v2/tickets`, { auth: bearer(first.body.access_token) })
    expect(me.status).toBe(401)
  })

  it('rejects a wrong PKCE verifier and a missing one', async () => {
    const { challenge } = pkce()
    const code = await codeFrom({ code_challenge: challenge, code_challenge_method: 'S256' })
    const wrong = await exchange({ grant_type: 'authorization_code', code, code_verifier: pkce().verifier })
    expect(wrong.status).toBe(400)
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) })
    const code2 = await codeFrom({ code_challenge: challenge, code_challenge_method: 'S256' })
    const missing = await exchange({ grant_type: 'authorization_code', code: code2 })
    expect(missing.body.error).toBe('invalid_grant')
  })

  it('expires codes after 120 seconds', async () => {
    const code = await codeFrom()
    await sandbox.control('/clock', { body: { advance_ms: 121_000 } })
    const late = await exchange({ grant_type: 'authorization_code', code })
    expect(late.status).toBe(400)
    expect(late.body.error).toBe('invalid_grant')
  })

  it('rejects a redirect_uri that differs from the authorize request', async () => {
    const code = await codeFrom()
    const response = await exchange({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:8765/other',
    })
    expect(response.body.error).toBe('invalid_grant')
  })

  it('answers invalid_client (401) for a wrong secret or unknown client', async () => {
    const code = await codeFrom()
    const wrongSecret = await exchange({ grant_type: 'authorization_code', code, client_secret: 'nope' })
    expect(wrongSecret.status).toBe(401)
    expect(wrongSecret.body.error).toBe('invalid_client')
    const unknown = await exchange({ grant_type: 'authorization_code', code, client_id: 'nobody' })
    expect(unknown.status).toBe(401)
  })

  it('issues expiring tokens with a rotating refresh token', async () => {
    const code = await codeFrom()
    const first = await exchange({ grant_type: 'authorization_code', code, expires_in: 3600 })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({
      expires_in: 3600,
      refresh_token: expect.any(String),
      refresh_token_expires_in: 2_592_000,
    })

    const refreshed = await exchange({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token })
    expect(refreshed.status).toBe(201)
    expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token)
    expect(refreshed.body.expires_in).toBe(3600)

    const reused = await exchange({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token })
    expect(reused.status).toBe(400)
    expect(reused.body.error).toBe('invalid_grant')

    await sandbox.control('/clock', { body: { advance_ms: 3601_000 } })
    const expired = await call(`${acme}/api/v2/tickets`, { auth: bearer(refreshed.body.access_token) })
    expect(expired.status).toBe(401)
    expect(expired.body.error).toBe('invalid_token')
    const next = await exchange({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token })
    expect(next.status).toBe(201)
  })

  it.each([
    [{ expires_in: 300 }],
    [{ expires_in: 172_800 }],
    [{ expires_in: 3600, refresh_token_expires_in: 100 }],
    [{ expires_in: 'soon' }],
  ])('validates lifetimes %j', async (lifetimes) => {
    const code = await codeFrom()
    const response = await exchange({ grant_type: 'authorization_code', code, ...lifetimes })
    expect(response.status).toBe(400)
    expect(response.body.error).toBe('invalid_request')
  })

  it('rejects unknown grant types', async () => {
    const response = await exchange({ grant_type: 'password' })
    expect(response.body.error).toBe('unsupported_grant_type')
  })

  it('supports client_credentials for confidential clients', async () => {
    const response = await exchange({ grant_type: 'client_credentials', scope: 'read' })
    expect(response.status).toBe(201)
    const me = await call(`${acme}/api/v2/users/me`, { auth: bearer(response.body.access_token) })
    expect(me.body.user.role).toBe('admin')
  })

  it('binds tokens to the account that issued them', async () => {
    const code = await codeFrom()
    const token = await exchange({ grant_type: 'authorization_code', code })
    const elsewhere = await call(`${sandbox.base('globex')}/api/v2/tickets`, {
      auth: bearer(token.body.access_token),
    })
    expect(elsewhere.status).toBe(401)
    expect(elsewhere.body.error).toBe('invalid_token')
    const foreignCode = await codeFrom()
    const wrongAccount = await call(`${sandbox.base('globex')}/oauth/tokens`, {
      json: {
        grant_type: 'authorization_code',
        code: foreignCode,
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uri: REDIRECT,
      },
    })
    expect(wrongAccount.body.error).toBe('invalid_grant')
  })
})

describe('registered clients', () => {
  it('requires PKCE from public clients and exact redirect URIs', async () => {
    const created = await sandbox.control('/oauth_clients', {
      body: { identifier: 'cli', redirect_uris: ['http://localhost:9000/cb'], kind: 'public' },
    })
    expect(created.status).toBe(201)
    const base = { client_id: 'cli', redirect_uri: 'http://localhost:9000/cb' }
    const noPkce = await fetch(authorizeUrl(base), { redirect: 'manual' })
    expect(new URL(noPkce.headers.get('location') as string).searchParams.get('error')).toBe(
      'invalid_request',
    )
    const otherPort = await fetch(authorizeUrl({ ...base, redirect_uri: 'http://localhost:9001/cb' }), {
      redirect: 'manual',
    })
    expect(otherPort.status).toBe(400)

    const { verifier, challenge } = pkce()
    const code = new URL(
      (await authorize({ ...base, code_challenge: challenge, code_challenge_method: 'S256' })).headers.get(
        'location',
      ) as string,
    ).searchParams.get('code')
    const token = await call(`${acme}/oauth/tokens`, {
      json: {
        grant_type: 'authorization_code',
        code,
        client_id: 'cli',
        redirect_uri: base.redirect_uri,
        code_verifier: verifier,
      },
    })
    expect(token.status).toBe(201)
  })
})
