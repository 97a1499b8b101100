import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  call,
  KEY,
  postForm,
  SECRET,
  signInAndConsent,
  startTestSandbox,
  type TestSandbox,
} from '../test-support.ts'
import { oauthHeader, signRequest } from './signature.ts'

let sandbox: TestSandbox
let clockSeconds: () => Promise<number>

beforeAll(async () => {
  sandbox = await startTestSandbox()
  clockSeconds = async () => Math.floor((await sandbox.control('/clock')).body.now_ms / 1000)
})
afterAll(() => sandbox.close())
beforeEach(async () => {
  await sandbox.control('/reset', { body: {} })
})

const nonce = () => randomBytes(12).toString('hex')
const CALLBACK = 'http://localhost:8765/trello/callback'

interface Signed {
  method: string
  url: string
  token?: string
  tokenSecret?: string
  consumerSecret?: string
  oauth?: Record<string, string>
  form?: Record<string, string>
  nonce?: string
  timestamp?: number
}

async function signedCall(input: Signed) {
  const oauth = signRequest({
    method: input.method,
    url: input.url,
    consumerKey: KEY,
    consumerSecret: input.consumerSecret ?? SECRET,
    token: input.token,
    tokenSecret: input.tokenSecret,
    oauth: input.oauth,
    form: input.form,
    nonce: input.nonce ?? nonce(),
    timestamp: input.timestamp ?? (await clockSeconds()),
  })
  return call(input.url, {
    method: input.method,
    headers: { authorization: oauthHeader(oauth) },
    form: input.form,
  })
}

async function requestToken(): Promise<{ token: string; secret: string }> {
  const answer = await signedCall({
    method: 'POST',
    url: `${sandbox.url}/1/OAuthGetRequestToken`,
    oauth: { oauth_callback: CALLBACK },
  })
  expect(answer.status).toBe(200)
  expect(answer.headers.get('content-type')).toBe('application/x-www-form-urlencoded')
  const values = new URLSearchParams(answer.text)
  expect(values.get('oauth_callback_confirmed')).toBe('true')
  return { token: values.get('oauth_token')!, secret: values.get('oauth_token_secret')! }
}

async function authorize(requestTokenValue: string, extra: Record<string, string> = {}): Promise<URL> {
  const page = `${sandbox.url}/1/OAuthAuthorizeToken?${new URLSearchParams({ oauth_token: requestTokenValue, name: 'Switchyard', scope: 'read,write', expiration: '1day', ...extra })}`
  const consent = await signInAndConsent(page)
  expect(consent.html).toContain('<strong id="app-name">Switchyard</strong>')
  const done = await postForm(consent.action, { ...consent.fields, decision: 'allow' })
  expect(done.status).toBe(302)
  return new URL(done.headers.get('location')!)
}

async function accessToken(): Promise<{ token: string; secret: string }> {
  const request = await requestToken()
  const back = await authorize(request.token)
  const answer = await signedCall({
    method: 'POST',
    url: `${sandbox.url}/1/OAuthGetAccessToken`,
    token: request.token,
    tokenSecret: request.secret,
    oauth: { oauth_verifier: back.searchParams.get('oauth_verifier')! },
  })
  expect(answer.status).toBe(200)
  const values = new URLSearchParams(answer.text)
  return { token: values.get('oauth_token')!, secret: values.get('oauth_token_secret')! }
}

describe('OAuth 1.0a three-legged flow', () => {
  it('request token → authorize → callback with verifier → access token → signed API calls', async () => {
    const request = await requestToken()
    expect(request.token).toMatch(/^[0-9a-f]{32}$/)
    const back = await authorize(request.token)
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK)
    expect(back.searchParams.get('oauth_token')).toBe(request.token)
    const verifier = back.searchParams.get('oauth_verifier')!
    expect(verifier).toMatch(/^[0-9a-f]{32}$/)

    const exchanged = await signedCall({
      method: 'POST',
      url: `${sandbox.url}/1/OAuthGetAccessToken`,
      token: request.token,
      tokenSecret: request.secret,
      oauth: { oauth_verifier: verifier },
    })
    expect(exchanged.status).toBe(200)
    const values = new URLSearchParams(exchanged.text)
    const token = values.get('oauth_token')!
    const secret = values.get('oauth_token_secret')!
    expect(token).toMatch(/^[0-9a-f]{64}$/)

    // A signed GET with query parameters (they are part of the signature).
    const me = await signedCall({
      method: 'GET',
      url: `${sandbox.url}/1/members/me?fields=username,fullName`,
      token,
      tokenSecret: secret,
    })
    expect(me.status).toBe(200)
    expect(me.body).toEqual({ id: '659200805eed000000000001', username: 'ada', fullName: 'Ada Lovelace' })

    // A signed POST with a form body (signed too).
    const created = await signedCall({
      method: 'POST',
      url: `${sandbox.url}/1/cards`,
      token,
      tokenSecret: secret,
      form: { idList: '659200805eed000000000011', name: 'Signed & sealed' },
    })
    expect(created.status).toBe(200)
    expect(created.body.name).toBe('Signed & sealed')

    // The access token is an ordinary API token too.
    expect((await sandbox.api('/1/members/me', token)).status).toBe(200)
    // The verifier and request token are single-use.
    const replay = await signedCall({
      method: 'POST',
      url: `${sandbox.url}/1/OAuthGetAccessToken`,
      token: request.token,
      tokenSecret: request.secret,
      oauth: { oauth_verifier: verifier },
    })
    expect(replay.status).toBe(401)
  })

  it('honours scope and expiration from the authorize step', async () => {
    const request = await requestToken()
    const back = await authorize(request.token, { scope: 'read', expiration: '1hour' })
    const exchanged = await signedCall({
      method: 'POST',
      url: `${sandbox.url}/1/OAuthGetAccessToken`,
      token: request.token,
      tokenSecret: request.secret,
      oauth: { oauth_verifier: back.searchParams.get('oauth_verifier')! },
    })
    const token = new URLSearchParams(exchanged.text).get('oauth_token')!
    const write = await sandbox.api('/1/cards', token, { form: { idList: '659200805eed000000000011' } })
    expect(write.text).toBe('unauthorized permission requested')
    await sandbox.control('/clock', { body: { advance_ms: 3601_000 } })
    expect((await sandbox.api('/1/members/me', token)).text).toBe('invalid token')
  })

  it('deny redirects with oauth_problem=user_refused', async () => {
    const request = await requestToken()
    const consent = await signInAndConsent(
      `${sandbox.url}/1/OAuthAuthorizeToken?oauth_token=${request.token}`,
    )
    const denied = await postForm(consent.action, { ...consent.fields, decision: 'deny' })
    expect(new URL(denied.headers.get('location')!).searchParams.get('oauth_problem')).toBe('user_refused')
  })

  it('refuses a callback outside the allowed origins at the authorize step', async () => {
    const answer = await signedCall({
      method: 'POST',
      url: `${sandbox.url}/1/OAuthGetRequestToken`,
      oauth: { oauth_callback: 'https://evil.example/cb' },
    })
    const token = new URLSearchParams(answer.text).get('oauth_token')!
    const page = await call(`${sandbox.url}/1/OAuthAuthorizeToken?oauth_token=${token}`)
    expect(page.status).toBe(400)
    expect(page.text).toBe('Invalid return_url')
  })
})

describe('OAuth 1.0a signature checks', () => {
  it('rejects a wrong consumer secret, a tampered request and a reused nonce (401)', async () => {
    const wrongSecret = await signedCall({
      method: 'POST',
      url: `${sandbox.url}/1/OAuthGetRequestToken`,
      consumerSecret: 'f'.repeat(64),
      oauth: { oauth_callback: CALLBACK },
    })
    expect(wrongSecret.status).toBe(401)
    expect(wrongSecret.text).toBe('Invalid Signature')

    const { token, secret } = await accessToken()
    const url = `${sandbox.url}/1/members/me`
    const timestamp = await clockSeconds()
    const oauth = signRequest({
      method: 'GET',
      url,
      consumerKey: KEY,
      consumerSecret: SECRET,
      token,
      tokenSecret: secret,
      nonce: 'fixed-nonce',
      timestamp,
    })
    const first = await call(url, { headers: { authorization: oauthHeader(oauth) } })
    expect(first.status).toBe(200)
    const replayed = await call(url, { headers: { authorization: oauthHeader(oauth) } })
    expect(replayed.status).toBe(401)
    expect(replayed.text).toBe('Invalid nonce')

    const tampered = await call(`${url}?fields=email`, {
      headers: { authorization: oauthHeader({ ...oauth, oauth_nonce: 'other' }) },
    })
    expect(tampered.status).toBe(401)
    expect(tampered.text).toBe('Invalid Signature')

    const wrongTokenSecret = await signedCall({ method: 'GET', url, token, tokenSecret: 'not-the-secret' })
    expect(wrongTokenSecret.text).toBe('Invalid Signature')
  })

  it('rejects a stale timestamp', async () => {
    const stale = await signedCall({
      method: 'POST',
      url: `${sandbox.url}/1/OAuthGetRequestToken`,
      oauth: { oauth_callback: CALLBACK },
      timestamp: (await clockSeconds()) - 3600,
    })
    expect(stale.status).toBe(401)
    expect(stale.text).toBe('Invalid timestamp')
  })

  it('signs /1/authorize tokens with an empty token secret', async () => {
    const token = await sandbox.token('ada')
    const ok = await signedCall({
      method: 'GET',
      url: `${sandbox.url}/1/boards/Rdmp2024?fields=name`,
      token,
      tokenSecret: '',
    })
    expect(ok.status).toBe(200)
    expect(ok.body).toEqual({ id: '659200805eed000000000010', name: 'Roadmap' })
  })

  it('accepts OAuth parameters in the query instead of the header', async () => {
    const url = `${sandbox.url}/1/OAuthGetRequestToken`
    const oauth = signRequest({
      method: 'GET',
      url: `${url}?oauth_callback=oob`,
      consumerKey: KEY,
      consumerSecret: SECRET,
      nonce: nonce(),
      timestamp: await clockSeconds(),
    })
    const answer = await call(`${url}?${new URLSearchParams({ ...oauth, oauth_callback: 'oob' })}`)
    expect(answer.status).toBe(200)
    const token = new URLSearchParams(answer.text).get('oauth_token')!
    const consent = await signInAndConsent(`${sandbox.url}/1/OAuthAuthorizeToken?oauth_token=${token}`)
    const done = await postForm(consent.action, { ...consent.fields, decision: 'allow' })
    expect(await done.text()).toMatch(/<pre id="verifier">[0-9a-f]{32}<\/pre>/)
  })

  it('answers invalid key for an unknown consumer key', async () => {
    const oauth = signRequest({
      method: 'POST',
      url: `${sandbox.url}/1/OAuthGetRequestToken`,
      consumerKey: 'a'.repeat(32),
      consumerSecret: SECRET,
      nonce: nonce(),
      timestamp: await clockSeconds(),
    })
    const answer = await call(`${sandbox.url}/1/OAuthGetRequestToken`, {
      method: 'POST',
      headers: { authorization: oauthHeader(oauth) },
    })
    expect(answer.status).toBe(401)
    expect(answer.text).toBe('invalid key')
  })
})
