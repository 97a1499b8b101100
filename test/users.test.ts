import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack, twoInstances } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, storedTokens, zendeskControl } from './helpers/stack.ts'

const databases = [
  { name: 'PGlite', databaseUrl: undefined as string | undefined },
  ...(process.env.TEST_DATABASE_URL
    ? [{ name: 'PostgreSQL', databaseUrl: process.env.TEST_DATABASE_URL }]
    : []),
]

const uniqueEmail = (tag: string) => `${tag}-${Math.random().toString(36).slice(2)}@example.test`

/** Signs a browser in with an API key and answers its session cookie. */
async function signIn(stack: TestStack, apiKey: string): Promise<string> {
  const res = await fetch(`${stack.url}/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  })
  expect(res.status).toBe(204)
  return res.headers.getSetCookie()[0].split(';')[0]
}

describe.each(databases)('users, managed by an admin, on $name', ({ databaseUrl }) => {
  let stack: TestStack
  let admin: ReturnType<typeof client>
  beforeAll(async () => {
    stack = await startTestStack({ databaseUrl })
    admin = client(stack, stack.apiKey)
  })
  afterAll(async () => {
    await stack?.close()
  })

  it('an admin creates a user who can sign in with the key shown once, and lists them', async () => {
    const email = uniqueEmail('New.Person')
    const created = await admin.post('/v1/users', { email, plan: 'pro' })
    expect(created.status).toBe(201)
    expect(created.headers.get('cache-control')).toBe('no-store')
    expect(created.body.user).toMatchObject({
      email: email.toLowerCase(),
      plan: 'pro',
      role: 'member',
      integrations: 0,
    })
    expect(created.body.api_key.key).toMatch(/^sy_/)
    const me = await client(stack, created.body.api_key.key).get('/v1/me')
    expect(me.body).toMatchObject({ id: created.body.user.id, plan: 'pro', role: 'member' })
    const listed = await admin.get('/v1/users')
    expect(listed.body.users.find((u: any) => u.id === created.body.user.id)).toMatchObject({
      email: email.toLowerCase(),
      plan: 'pro',
    })
    expect(listed.text).not.toContain(created.body.api_key.key)
  })

  it('a duplicate email is a 409, whatever its case', async () => {
    const email = uniqueEmail('twice')
    expect((await admin.post('/v1/users', { email })).status).toBe(201)
    const again = await admin.post('/v1/users', { email: email.toUpperCase() })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('conflict')
  })

  it.each([
    [{ plan: 'pro' }, 'email'],
    [{ email: 'not-an-email' }, 'email'],
    [{ email: 'a\u0000b@example.test' }, 'email'],
    [{ email: 42 }, 'email'],
    [{ email: 'ok@example.test', plan: 'gold' }, 'plan'],
    [{ email: 'ok@example.test', role: 'owner' }, 'role'],
    [{ email: 'ok@example.test', admin: true }, 'admin'],
  ])('creating with %j is a 400 naming %s', async (body, field) => {
    const res = await admin.post('/v1/users', body)
    expect(res.status).toBe(400)
    expect(res.body.code).toBe('invalid_input')
    expect(res.body.errors.map((e: any) => e.field)).toEqual([field])
  })

  it.each([
    [{}, 'plan'],
    [{ plan: 'platinum' }, 'plan'],
    [{ role: 'root' }, 'role'],
  ])('changing with %j is a 400 naming %s', async (body, field) => {
    const { id } = await stack.createUser('free')
    const res = await admin.call('PATCH', `/v1/users/${id}`, body)
    expect(res.status).toBe(400)
    expect(res.body.errors.map((e: any) => e.field)).toEqual([field])
  })

  it.each(['usr_nobody', `usr_${'x'.repeat(90)}`, 'key_abc'])(
    'an unknown user id %s is a 404',
    async (id) => {
      expect((await admin.call('PATCH', `/v1/users/${id}`, { plan: 'pro' })).status).toBe(404)
      expect((await admin.delete(`/v1/users/${id}`)).status).toBe(404)
      expect((await admin.get(`/v1/users/${id}`)).status).toBe(404)
    },
  )

  it('a user id with a NUL byte is a 400, never a 500', async () => {
    for (const res of [
      await admin.call('PATCH', '/v1/users/usr_a%00b', { plan: 'pro' }),
      await admin.delete('/v1/users/usr_a%00b'),
    ]) {
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('invalid_input')
    }
  })

  it("a changed plan applies to the user's very next request, cached key and all", async () => {
    const user = await stack.createUser('free')
    expect((await client(stack, user.apiKey).get('/v1/me')).body.plan).toBe('free') // the key is now cached
    const changed = await admin.call('PATCH', `/v1/users/${user.id}`, { plan: 'enterprise' })
    expect(changed.status).toBe(200)
    expect(changed.body.plan).toBe('enterprise')
    expect((await client(stack, user.apiKey).get('/v1/me')).body.plan).toBe('enterprise')
  })

  it('a member gets 403 forbidden on every admin route, and cannot make themselves admin', async () => {
    const member = await stack.createUser()
    const as = client(stack, member.apiKey)
    for (const res of [
      await as.get('/v1/users'),
      await as.post('/v1/users', { email: uniqueEmail('sneaky') }),
      await as.call('PATCH', `/v1/users/${member.id}`, { role: 'admin' }),
      await as.delete(`/v1/users/${member.id}`),
    ]) {
      expect(res.status).toBe(403)
      expect(res.body.code).toBe('forbidden')
    }
    expect((await as.get('/v1/me')).body.role).toBe('member')
  })

  it('a demoted admin loses admin rights on the next request', async () => {
    const second = await stack.createUser('enterprise', 'admin')
    expect((await client(stack, second.apiKey).get('/v1/users')).status).toBe(200)
    expect((await admin.call('PATCH', `/v1/users/${second.id}`, { role: 'member' })).status).toBe(200)
    expect((await client(stack, second.apiKey).get('/v1/users')).status).toBe(403)
  })

  it('removing a user revokes and erases their integrations and ends their keys and sessions', async () => {
    const user = await stack.createUser()
    const connected = await connectZendesk({ url: stack.url, apiKey: user.apiKey })
    const tokens = await storedTokens(stack, connected.integrationId!)
    expect(tokens.access_token.length).toBeGreaterThan(8)
    await zendeskControl(stack).clearRequests()
    const cookie = await signIn(stack, user.apiKey)
    const asBrowser = () => fetch(`${stack.url}/v1/me`, { headers: { cookie } })
    expect((await asBrowser()).status).toBe(200)
    expect(
      (await client(stack, user.apiKey).run('zendesk.get_ticket', connected.integrationId!, { ticket_id: 1 }))
        .status,
    ).toBe(200)
    // A connect flow left pending.
    expect(
      (
        await client(stack, user.apiKey).post('/v1/integrations/connect', {
          platform: 'zendesk',
          fields: { subdomain: 'acme' },
        })
      ).status,
    ).toBe(201)

    const removed = await admin.delete(`/v1/users/${user.id}`)
    expect(removed.status).toBe(200)
    expect(removed.body).toMatchObject({ id: user.id, integrations_disconnected: 1 })

    // Revocation was asked of the platform, as a disconnect does (the sandbox may not know the call;
    // revocation is best effort, erasure is not).
    const revocations = (await zendeskControl(stack).requests()).filter(
      (r) => r.method === 'DELETE' && r.path.endsWith('/oauth/tokens/current.json'),
    )
    expect(revocations.length).toBeGreaterThanOrEqual(1)
    expect((await client(stack, user.apiKey).get('/v1/me')).status).toBe(401)
    expect((await asBrowser()).status).toBe(401)
    const db = stack.services.store.db
    for (const table of ['api_keys', 'sessions', 'integrations', 'connect_sessions'] as const) {
      expect(await db.selectFrom(table).selectAll().where('user_id', '=', user.id).execute(), table).toEqual(
        [],
      )
    }
    expect(
      await db.selectFrom('integrations').selectAll().where('id', '=', connected.integrationId!).execute(),
    ).toEqual([])
    expect((await admin.get(`/v1/users/${user.id}`)).status).toBe(404)
  })
})

// On PostgreSQL the stack makes a database of its own, so its first user is the only admin there
// and real concurrent transactions meet.
describe.each(databases)('the last admin stays, on $name', ({ databaseUrl }) => {
  let stack: TestStack
  beforeAll(async () => {
    stack = await startTestStack({ databaseUrl })
  })
  afterAll(async () => {
    await stack?.close()
  })

  it('cannot be demoted or removed (409 with the way out), and nothing of theirs is revoked', async () => {
    const admin = client(stack, stack.apiKey)
    const connected = await connectZendesk(stack)
    const demote = await admin.call('PATCH', `/v1/users/${stack.userId}`, { role: 'member' })
    expect(demote.status).toBe(409)
    expect(demote.body.detail).toMatch(/last admin.*make another user an admin first/)
    const remove = await admin.delete(`/v1/users/${stack.userId}`)
    expect(remove.status).toBe(409)
    expect(remove.body.detail).toMatch(/cannot remove the last admin/)
    expect((await admin.get(`/v1/integrations/${connected.integrationId}`)).body.status).toBe('active')
    expect((await admin.run('zendesk.get_ticket', connected.integrationId!, { ticket_id: 1 })).status).toBe(
      200,
    )
  })

  it.each(Array.from({ length: 10 }, (_, i) => i + 1))(
    'two admins demoting each other at once: exactly one succeeds (round %i)',
    async () => {
      // Each round starts with exactly two admins: the stack's first user and a new one.
      const db = stack.services.store.db
      await db.updateTable('users').set({ role: 'member' }).where('id', '!=', stack.userId).execute()
      await db.updateTable('users').set({ role: 'admin' }).where('id', '=', stack.userId).execute()
      await stack.services.users.keysChanged(stack.userId)
      const second = await stack.createUser('enterprise', 'admin')
      // Straight to the engine, so that the two transactions start together (over HTTP the requests'
      // own work spreads them apart).
      const outcomes = await Promise.allSettled([
        stack.services.admin.change(second.id, { role: 'member' }),
        stack.services.admin.change(stack.userId, { role: 'member' }),
      ])
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult
      expect(refused.reason.code).toBe('conflict')
      const admins = await db.selectFrom('users').select('id').where('role', '=', 'admin').execute()
      expect(admins).toHaveLength(1)
    },
  )
})

describe.runIf(process.env.TEST_DATABASE_URL)('user changes reach every instance on PostgreSQL', () => {
  // Caches stretched to ten minutes: an instance that drops a removed user's key or integration
  // can only have learnt of it from the other instance's change notice.
  const TEN_MINUTES = 600_000
  let a: TestStack
  let b: TestStack
  twoInstances(
    (first, second) => {
      a = first
      b = second
    },
    { first: { cacheTtlMs: TEN_MINUTES }, second: { cacheTtlMs: TEN_MINUTES } },
  )

  async function eventually(check: () => Promise<boolean>): Promise<boolean> {
    for (let i = 0; i < 400; i++) {
      if (await check()) return true
      await new Promise((r) => setTimeout(r, 50))
    }
    return false
  }

  it('a user removed on one instance is refused on the other, key and integration alike', async () => {
    const user = await a.createUser()
    const connected = await connectZendesk({ url: a.url, apiKey: user.apiKey })
    const run = () =>
      client(b, user.apiKey).run('zendesk.get_ticket', connected.integrationId!, { ticket_id: 1 })
    expect((await run()).status).toBe(200) // b now caches the key and the integration
    expect((await client(a, a.apiKey).delete(`/v1/users/${user.id}`)).status).toBe(200)
    expect(await eventually(async () => (await run()).status === 401)).toBe(true)
  })

  it('a plan changed on one instance applies on the other', async () => {
    const user = await a.createUser('free')
    expect((await client(b, user.apiKey).get('/v1/me')).body.plan).toBe('free')
    expect(
      (await client(a, a.apiKey).call('PATCH', `/v1/users/${user.id}`, { plan: 'enterprise' })).status,
    ).toBe(200)
    expect(
      await eventually(async () => (await client(b, user.apiKey).get('/v1/me')).body.plan === 'enterprise'),
    ).toBe(true)
  })
})
