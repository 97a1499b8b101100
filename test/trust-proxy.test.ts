import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FREE_FAILURES } from '../src/core/access/sign-in.ts'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'

// The client address behind a reverse proxy (SWITCHYARD_TRUST_PROXY, docs/security.md "People"): the
// sign-in slow-down counts failures per client address, which comes from X-Forwarded-For only when the
// request's peer is a trusted proxy. From anyone else the header is the sender's own claim, ignored.
// The tests' requests come from loopback: one service trusts it as its proxy, the other trusts only an
// address no test request comes from.
let behindProxy: TestStack
let direct: TestStack
beforeAll(async () => {
  const database = process.env.TEST_DATABASE_URL ? { databaseUrl: process.env.TEST_DATABASE_URL } : {}
  ;[behindProxy, direct] = await Promise.all([
    startTestStack({ ...database, config: { trustedProxies: ['loopback'] } }),
    startTestStack({ ...database, config: { trustedProxies: ['10.9.9.9'] } }),
  ])
}, 180_000)
afterAll(async () => {
  await Promise.all([behindProxy?.close(), direct?.close()])
})

let emails = 0
const freshEmail = () => `proxy-${Date.now().toString(36)}-${emails++}@example.test`

/** A failing sign-in (an unknown email) sent with `forwardedFor` as X-Forwarded-For; answers the status. */
async function signInFrom(stack: TestStack, forwardedFor: string | undefined): Promise<number> {
  const response = await fetch(`${stack.url}/v1/session`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: new URL(stack.url).origin,
      ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
    },
    body: JSON.stringify({ email: freshEmail(), password: 'not the password' }),
  })
  await response.body?.cancel()
  return response.status
}

/** The client addresses the slow-down has failures for. */
async function countedClients(stack: TestStack): Promise<string[]> {
  const rows = await stack.services.store.db
    .selectFrom('sign_in_failures')
    .select('key')
    .where('key', 'like', 'client:%')
    .execute()
  return rows.map((r) => r.key.slice('client:'.length)).sort()
}

/** A client address slowed as many failures just now would slow it. */
async function slowDown(stack: TestStack, address: string) {
  await stack.services.store.db
    .insertInto('sign_in_failures')
    .values({ key: `client:${address}`, failures: FREE_FAILURES.client + 8, last_failure_at: new Date() })
    .execute()
}

describe('behind a trusted proxy, the client address is the one the proxy forwards', () => {
  it('failures count against the forwarded client, so one slowed person does not slow everyone', async () => {
    expect(await signInFrom(behindProxy, '203.0.113.8')).toBe(401)
    expect(await countedClients(behindProxy)).toEqual(['203.0.113.8'])
    await slowDown(behindProxy, '203.0.113.7')
    expect(await signInFrom(behindProxy, '203.0.113.7')).toBe(429)
    expect(await signInFrom(behindProxy, '203.0.113.8')).toBe(401)
  })

  it.each([
    ['an address put in front of the real one', '198.51.100.1, 203.0.113.7'],
    ['several made-up hops', '10.0.0.1, 192.0.2.55, 203.0.113.7'],
    ['a made-up loopback hop', '127.0.0.1, 203.0.113.7'],
  ])(
    'a slowed client who sends %s is still that client (the proxy adds the real address last)',
    async (_label, header) => {
      expect(await signInFrom(behindProxy, header)).toBe(429)
    },
  )
})

describe('from a peer that is not a trusted proxy, X-Forwarded-For is ignored', () => {
  it.each([
    ['another address', '203.0.113.50'],
    ['a list of addresses', '203.0.113.51, 203.0.113.52'],
    ['the trusted proxy itself', '10.9.9.9'],
    ['something that is no address', 'not-an-address'],
    ['an empty header', ''],
  ])('a spoofed header naming %s is counted against the real peer', async (_label, header) => {
    const before = await countedClients(direct)
    expect(await signInFrom(direct, header)).toBe(401)
    const after = await countedClients(direct)
    expect(after).toHaveLength(1)
    expect(after[0]).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/)
    if (before.length) expect(after).toEqual(before)
  })

  it('a slowed peer cannot escape the slow-down by naming another client', async () => {
    const [peer] = await countedClients(direct)
    await direct.services.store.db
      .updateTable('sign_in_failures')
      .set({ failures: FREE_FAILURES.client + 8, last_failure_at: new Date() })
      .where('key', '=', `client:${peer}`)
      .execute()
    for (const header of ['203.0.113.60', '198.51.100.2, 203.0.113.61', undefined])
      expect(await signInFrom(direct, header)).toBe(429)
  })
})
