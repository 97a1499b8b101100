import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashingWork } from '../src/core/access/passwords.ts'
import { FREE_FAILURES, PasswordSignIn } from '../src/core/access/sign-in.ts'
import { SESSION_COOKIE } from '../src/server/auth.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// Signing in like a person (docs/security.md, "People"): email and password, the one-time links that
// set a password, and the sessions a person sees and ends, attacked the ways sign-in is attacked.
const logLines: string[] = []
const sink = new Writable({
  write(chunk, _enc, done) {
    logLines.push(String(chunk))
    done()
  },
})

let stack: TestStack
let origin: string
beforeAll(async () => {
  stack = await startTestStack({
    logDestination: sink,
    ...(process.env.TEST_DATABASE_URL ? { databaseUrl: process.env.TEST_DATABASE_URL } : {}),
  })
  origin = new URL(stack.url).origin
})
afterAll(async () => {
  await stack?.close()
})

const STRONG = 'velvet otter lantern ninety'
let emails = 0
const freshEmail = () => `person-${Date.now().toString(36)}-${emails++}@example.test`

interface Answer {
  status: number
  body: any
  cookie: string | undefined
  setCookie: string | null
  headers: Headers
}

async function call(
  method: string,
  path: string,
  options: { body?: unknown; cookie?: string; key?: string; origin?: string | null; type?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {}
  if (options.body !== undefined) headers['content-type'] = options.type ?? 'application/json'
  if (options.cookie) headers.cookie = `${SESSION_COOKIE}=${options.cookie}`
  if (options.key) headers.authorization = `Bearer ${options.key}`
  if (options.origin !== null) headers.origin = options.origin ?? origin
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
  })
  const text = await response.text()
  const setCookie = response.headers.get('set-cookie')
  const cookie = setCookie ? new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(setCookie)?.[1] : undefined
  return {
    status: response.status,
    body: text ? JSON.parse(text) : undefined,
    cookie: cookie || undefined,
    setCookie,
    headers: response.headers,
  }
}

/** A person with a password, set through the invitation link an admin got when adding them. */
async function invitedPerson(role: 'admin' | 'member' = 'member') {
  const email = freshEmail()
  const created = await call('POST', '/v1/users', { key: stack.apiKey, body: { email, role } })
  expect(created.status).toBe(201)
  const token = tokenOf(created.body.invitation.url)
  const accepted = await call('POST', '/v1/password-links/accept', { body: { token, password: STRONG } })
  expect(accepted.status).toBe(204)
  return { id: created.body.user.id as string, email, cookie: accepted.cookie! }
}

const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, '')

describe('email and password', () => {
  it('signs a person in with a session cookie that scripts cannot read and other sites do not send', async () => {
    const person = await invitedPerson()
    const answer = await call('POST', '/v1/session', { body: { email: person.email, password: STRONG } })
    expect(answer.status).toBe(204)
    expect(answer.setCookie).toMatch(/HttpOnly/i)
    expect(answer.setCookie).toMatch(/SameSite=Lax/i)
    // Plain http here; behind https the cookie is Secure (publicUrl's scheme decides).
    expect(answer.setCookie).not.toMatch(/Secure/i)
    const me = await call('GET', '/v1/me', { cookie: answer.cookie })
    expect(me.body).toMatchObject({ id: person.id, email: person.email, has_password: true })
    // The email is matched whatever its case and surrounding spaces.
    const shouted = await call('POST', '/v1/session', {
      body: { email: `  ${person.email.toUpperCase()} `, password: STRONG },
    })
    expect(shouted.status).toBe(204)
  })

  it('an unknown email answers exactly as a known email with a wrong password, after the same hashing work', async () => {
    const person = await invitedPerson()
    const noPassword = await call('POST', '/v1/users', { key: stack.apiKey, body: { email: freshEmail() } })
    const cases = [
      { email: freshEmail(), password: STRONG }, // no such account
      { email: person.email, password: 'wrong but long enough' }, // wrong password
      { email: noPassword.body.user.email, password: STRONG }, // invited, no password yet
    ]
    const answers = []
    for (const attempt of cases) {
      const before = hashingWork.count
      const answer = await call('POST', '/v1/session', { body: attempt })
      expect(hashingWork.count - before, attempt.email).toBe(1)
      answers.push({ status: answer.status, body: answer.body, cookie: answer.setCookie })
    }
    expect(answers[0]).toMatchObject({ status: 401, cookie: null })
    expect(answers[1]).toEqual(answers[0])
    expect(answers[2]).toEqual(answers[0])
  })

  it.each([
    ['no body', undefined, 'email'],
    ['no password', { email: 'a@example.test' }, 'password'],
    ['an empty email', { email: '', password: 'x' }, 'email'],
    ['a password as a number', { email: 'a@example.test', password: 12345 }, 'password'],
    ['an unknown member', { email: 'a@example.test', password: 'x', remember: true }, ''],
    ['a password of a megabyte', { email: 'a@example.test', password: 'x'.repeat(1_000_000) }, 'password'],
  ])('%s is refused as bad input naming the field, without hashing anything', async (_label, body, field) => {
    const before = hashingWork.count
    const answer = await call('POST', '/v1/session', { body: body ?? {} })
    expect(answer.status).toBe(400)
    if (field) expect(JSON.stringify(answer.body.errors)).toContain(field)
    expect(hashingWork.count).toBe(before)
  })
})

describe('login CSRF: another site cannot sign a browser in', () => {
  it.each([
    ['another origin', 'https://evil.example'],
    ['a look-alike origin', `${origin}.evil.example`],
    ['the null origin of a sandboxed frame', 'null'],
  ])('%s is refused, and no cookie is set', async (_label, from) => {
    const person = await invitedPerson()
    for (const path of ['/v1/session', '/v1/password-links/accept']) {
      const answer = await call('POST', path, {
        origin: from,
        body:
          path === '/v1/session'
            ? { email: person.email, password: STRONG }
            : { token: 'x'.repeat(43), password: STRONG },
      })
      expect(answer.status, path).toBe(403)
      expect(answer.setCookie, path).toBeNull()
    }
  })

  it('a cross-site form post (no JSON) is refused before any sign-in', async () => {
    const person = await invitedPerson()
    const answer = await call('POST', '/v1/session', {
      origin: null,
      type: 'application/x-www-form-urlencoded',
      body: `email=${encodeURIComponent(person.email)}&password=${encodeURIComponent(STRONG)}`,
    })
    expect(answer.status).toBe(415)
    expect(answer.setCookie).toBeNull()
  })
})

describe('session fixation: signing in never keeps the session id the browser came with', () => {
  it('a session id planted before sign-in is replaced and ended', async () => {
    const victim = await invitedPerson()
    // The attacker's own valid session, planted in the victim's browser.
    const attacker = await invitedPerson()
    const planted = attacker.cookie
    const answer = await call('POST', '/v1/session', {
      cookie: planted,
      body: { email: victim.email, password: STRONG },
    })
    expect(answer.status).toBe(204)
    expect(answer.cookie).toBeDefined()
    expect(answer.cookie).not.toBe(planted)
    expect((await call('GET', '/v1/me', { cookie: answer.cookie })).body.id).toBe(victim.id)
    // The planted id names no one now, least of all the victim.
    expect((await call('GET', '/v1/me', { cookie: planted })).status).toBe(401)
  })

  it('a made-up session id is never adopted', async () => {
    const person = await invitedPerson()
    const madeUp = 'a'.repeat(43)
    const answer = await call('POST', '/v1/session', {
      cookie: madeUp,
      body: { email: person.email, password: STRONG },
    })
    expect(answer.cookie).not.toBe(madeUp)
    expect((await call('GET', '/v1/me', { cookie: madeUp })).status).toBe(401)
  })
})

describe('repeated failures slow the answers down', () => {
  it('a slowed account answers 429 with Retry-After before checking the password, for known and unknown emails alike', async () => {
    const person = await invitedPerson()
    const unknown = freshEmail()
    // Failures recorded as the engine records them (counted in the next test, on its own clock): a
    // guesser's many misses just now.
    await stack.services.store.db
      .insertInto('sign_in_failures')
      .values(
        [person.email, unknown].map((email) => ({
          key: `account:${email}`,
          failures: FREE_FAILURES.account + 8,
          last_failure_at: new Date(),
        })),
      )
      .execute()
    const answers = []
    for (const email of [person.email, unknown]) {
      const before = hashingWork.count
      const slowed = await call('POST', '/v1/session', { body: { email, password: STRONG } })
      expect(hashingWork.count).toBe(before)
      expect(slowed.setCookie).toBeNull()
      expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThan(60)
      answers.push({ status: slowed.status, code: slowed.body.code })
    }
    expect(answers).toEqual([
      { status: 429, code: 'rate_limited' },
      { status: 429, code: 'rate_limited' },
    ])
  })

  it('waits double with each further failure, per account and per client address, and pass', async () => {
    let now = Date.now()
    const signIn = new PasswordSignIn(stack.services.store.db, () => now)
    const person = await invitedPerson()
    const attempt = (email: string, password: string, client = '203.0.113.7') =>
      signIn.signIn({ email, password }, client).then(
        () => 'signed in',
        (err: { code: string; extras: { retryAfterSeconds?: number } }) =>
          err.code === 'rate_limited' ? `wait ${err.extras.retryAfterSeconds}` : err.code,
      )
    for (let i = 0; i < FREE_FAILURES.account; i++)
      expect(await attempt(person.email, 'wrong password', '203.0.113.1')).toBe('unauthenticated')
    expect(await attempt(person.email, STRONG, '203.0.113.2')).toBe('wait 1')
    now += 1001
    expect(await attempt(person.email, 'wrong password', '203.0.113.3')).toBe('unauthenticated')
    expect(await attempt(person.email, STRONG, '203.0.113.4')).toBe('wait 2')
    now += 2001
    expect(await attempt(person.email, STRONG, '203.0.113.5')).toBe('signed in')
    // One client guessing across many emails is slowed too, whatever email it tries next.
    const guesser = '198.51.100.9'
    for (let i = 0; i < FREE_FAILURES.client; i++)
      expect(await attempt(freshEmail(), 'wrong password', guesser)).toBe('unauthenticated')
    expect(await attempt(person.email, STRONG, guesser)).toBe('wait 1')
  })
})

describe('invitations and reset links', () => {
  it('a link works once: the second use, and a second browser at the same time, are refused', async () => {
    const created = await call('POST', '/v1/users', { key: stack.apiKey, body: { email: freshEmail() } })
    expect(created.body.invitation).toMatchObject({ purpose: 'invitation', emailed: false })
    expect(created.headers.get('cache-control')).toBe('no-store')
    const token = tokenOf(created.body.invitation.url)
    const inspected = await call('POST', '/v1/password-links/inspect', { body: { token } })
    expect(inspected.body).toMatchObject({ purpose: 'invitation', email: created.body.user.email })
    const [a, b] = await Promise.all([
      call('POST', '/v1/password-links/accept', { body: { token, password: STRONG } }),
      call('POST', '/v1/password-links/accept', { body: { token, password: `${STRONG} too` } }),
    ])
    expect([a.status, b.status].sort()).toEqual([204, 410])
    const again = await call('POST', '/v1/password-links/accept', { body: { token, password: STRONG } })
    expect(again.status).toBe(410)
    expect((await call('POST', '/v1/password-links/inspect', { body: { token } })).status).toBe(410)
  })

  it('an expired link, an unknown one and a superseded one get the same refusal', async () => {
    const created = await call('POST', '/v1/users', { key: stack.apiKey, body: { email: freshEmail() } })
    const first = tokenOf(created.body.invitation.url)
    const reissued = await call('POST', `/v1/users/${created.body.user.id}/password-link`, {
      key: stack.apiKey,
    })
    expect(reissued.status).toBe(201)
    const second = tokenOf(reissued.body.url)
    await stack.services.store.db
      .updateTable('password_links')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', created.body.user.id)
      .execute()
    const refusals = []
    for (const token of [first, second, 'Z'.repeat(43)]) {
      const answer = await call('POST', '/v1/password-links/accept', { body: { token, password: STRONG } })
      refusals.push({ status: answer.status, detail: answer.body.detail, cookie: answer.setCookie })
    }
    expect(refusals[0].status).toBe(410)
    expect(refusals[1]).toEqual(refusals[0])
    expect(refusals[2]).toEqual(refusals[0])
  })

  it.each([
    ['too short', 'short pw', 'at least'],
    ['a common password', 'password123!', 'too easy to guess'],
    ['the person own email', '{email}', 'email address'],
  ])(
    'a weak password (%s) is refused naming the field, and the link still works',
    async (_label, weak, says) => {
      const email = freshEmail()
      const created = await call('POST', '/v1/users', { key: stack.apiKey, body: { email } })
      const token = tokenOf(created.body.invitation.url)
      const refused = await call('POST', '/v1/password-links/accept', {
        body: { token, password: weak.replace('{email}', email) },
      })
      expect(refused.status).toBe(400)
      expect(refused.body.errors[0]).toMatchObject({ field: 'password' })
      expect(refused.body.detail).toContain(says)
      expect(
        (await call('POST', '/v1/password-links/accept', { body: { token, password: STRONG } })).status,
      ).toBe(204)
    },
  )

  it('a reset link sets a new password and ends every session the person had', async () => {
    const person = await invitedPerson()
    const link = await call('POST', `/v1/users/${person.id}/password-link`, { key: stack.apiKey })
    expect(link.body.purpose).toBe('reset')
    const accepted = await call('POST', '/v1/password-links/accept', {
      body: { token: tokenOf(link.body.url), password: `${STRONG} again` },
    })
    expect(accepted.status).toBe(204)
    expect((await call('GET', '/v1/me', { cookie: person.cookie })).status).toBe(401)
    expect(
      (await call('POST', '/v1/session', { body: { email: person.email, password: STRONG } })).status,
    ).toBe(401)
    const signedIn = await call('POST', '/v1/session', {
      body: { email: person.email, password: `${STRONG} again` },
    })
    expect(signedIn.status).toBe(204)
  })

  it('only an admin issues links', async () => {
    const member = await stack.createUser('pro', 'member')
    const answer = await call('POST', `/v1/users/${member.id}/password-link`, { key: member.apiKey })
    expect(answer.status).toBe(403)
  })
})

describe('sessions a person can see and end', () => {
  it('lists them with the current one marked, ends one, then signs out everywhere', async () => {
    const person = await invitedPerson()
    const laptop = person.cookie
    const phone = (await call('POST', '/v1/session', { body: { email: person.email, password: STRONG } }))
      .cookie!
    const listed = await call('GET', '/v1/me/sessions', { cookie: laptop })
    expect(listed.body.sessions).toHaveLength(2)
    expect(listed.body.sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1)
    expect(JSON.stringify(listed.body)).not.toContain(laptop)
    const phoneId = listed.body.sessions.find((s: { current: boolean }) => !s.current).id
    expect((await call('DELETE', `/v1/me/sessions/${phoneId}`, { cookie: laptop })).status).toBe(204)
    expect((await call('GET', '/v1/me', { cookie: phone })).status).toBe(401)
    // Another person's session cannot be ended by guessing its id.
    const other = await invitedPerson()
    const othersId = (await call('GET', '/v1/me/sessions', { cookie: other.cookie })).body.sessions[0].id
    expect((await call('DELETE', `/v1/me/sessions/${othersId}`, { cookie: laptop })).status).toBe(404)
    expect((await call('GET', '/v1/me', { cookie: other.cookie })).status).toBe(200)
    const everywhere = await call('DELETE', '/v1/me/sessions', { cookie: laptop })
    expect(everywhere.body).toEqual({ ended: 1 })
    expect(everywhere.setCookie).toMatch(new RegExp(`${SESSION_COOKIE}=;`))
    expect((await call('GET', '/v1/me', { cookie: laptop })).status).toBe(401)
  })
})

describe('the first admin starts from the generated key, then sets a password', () => {
  it('sets one with no current password, then needs the current one to change it', async () => {
    const admin = await stack.createUser('enterprise', 'admin')
    const keySession = await call('POST', '/v1/session', { body: { api_key: admin.apiKey } })
    expect(keySession.status).toBe(204)
    expect((await call('GET', '/v1/me', { cookie: keySession.cookie })).body.has_password).toBe(false)
    const set = await call('PUT', '/v1/me/password', {
      cookie: keySession.cookie,
      body: { new_password: STRONG },
    })
    expect(set.status).toBe(204)
    const unproven = await call('PUT', '/v1/me/password', {
      cookie: keySession.cookie,
      body: { new_password: `${STRONG} two` },
    })
    expect(unproven.status).toBe(400)
    expect(unproven.body.errors[0].field).toBe('current_password')
    const changed = await call('PUT', '/v1/me/password', {
      cookie: keySession.cookie,
      body: { current_password: STRONG, new_password: `${STRONG} two` },
    })
    expect(changed.status).toBe(204)
    // The session that changed it stays; the password works.
    expect((await call('GET', '/v1/me', { cookie: keySession.cookie })).status).toBe(200)
  })
})

describe('passwords and link tokens never reach the logs', () => {
  it('after every test above, no log line holds a password or a link token', async () => {
    const created = await call('POST', '/v1/users', { key: stack.apiKey, body: { email: freshEmail() } })
    const token = tokenOf(created.body.invitation.url)
    await call('POST', '/v1/password-links/accept', { body: { token, password: STRONG } })
    const all = logLines.join('\n')
    expect(all.length).toBeGreaterThan(0)
    for (const secret of [STRONG, token, 'wrong password']) expect(all).not.toContain(secret)
  })
})
