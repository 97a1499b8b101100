import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startTestStack, type TestStack } from './helpers/test-stack.ts'
import { connectZendesk } from './helpers/connect.ts'
import { client, zendeskControl } from './helpers/stack.ts'

// Rate limits and retries: a 429 is honoured through Retry-After; pre-built steps wait within a
// bound, the API Call fails fast; non-idempotent requests are retried only when not processed.
let stack: TestStack
let integration: string
let ticket: number

beforeAll(async () => {
  stack = await startTestStack()
  integration = (await connectZendesk(stack)).integrationId!
  ticket = (
    await client(stack, stack.apiKey).run('zendesk.create_ticket', integration, {
      subject: 's',
      description: 'd',
    })
  ).body.output.id
})
afterAll(async () => {
  await stack?.close()
})
beforeEach(async () => {
  await zendeskControl(stack).clearFaults()
  await zendeskControl(stack).clearRequests()
})

const api = () => client(stack, stack.apiKey)
const requestsTo = async (fragment: string) =>
  (await zendeskControl(stack).requests()).filter((r) => r.path.includes(fragment))

describe('rate limits and retries', () => {
  it('a pre-built step waits out a 429 for its Retry-After and then succeeds', async () => {
    await zendeskControl(stack).fault({
      rate_limit: { retry_after: 1 },
      match: { method: 'GET', path: `/api/v2/tickets/${ticket}` },
      times: 1,
    })
    const started = Date.now()
    const { status } = await api().run('zendesk.get_ticket', integration, { ticket_id: ticket })
    expect(status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    const statuses = (await requestsTo(`/tickets/${ticket}.json`)).map((r) => r.status)
    expect(statuses).toEqual([429, 200])
  })

  it('a pre-built step gives up at once with rate_limited when Retry-After exceeds its bound', async () => {
    await zendeskControl(stack).fault({
      rate_limit: { retry_after: 120 },
      match: { method: 'GET', path: `/api/v2/tickets/${ticket}` },
      times: 1,
    })
    const { status, body, headers } = await api().run('zendesk.get_ticket', integration, {
      ticket_id: ticket,
    })
    expect(status).toBe(429)
    expect(body).toMatchObject({ code: 'rate_limited', retry_after: 120 })
    expect(headers.get('retry-after')).toBe('120')
    // The credential stays blocked: the next call does not even reach the platform.
    await zendeskControl(stack).clearRequests()
    const next = await api().run('zendesk.get_ticket', integration, { ticket_id: ticket })
    expect(next.status).toBe(429)
    expect(await zendeskControl(stack).requests()).toEqual([])
  })
})

describe('rate limits: the API Call step', () => {
  let other: string
  beforeAll(async () => {
    // A separate account keeps this credential's budget apart from the blocked one above.
    other = (await connectZendesk(stack, { email: 'agent@acme.test' })).integrationId!
  })

  it('fails fast with rate_limited and retry_after instead of waiting', async () => {
    await zendeskControl(stack).fault({
      rate_limit: { retry_after: 2 },
      match: { path: '/api/v2/tickets.json' },
      times: 1,
    })
    const { status, body } = await api().run('zendesk.api_call', other, {
      method: 'GET',
      endpoint: '/api/v2/tickets.json',
    })
    expect(status).toBe(429)
    expect(body).toMatchObject({ code: 'rate_limited', retry_after: 2 })
    expect(await requestsTo('/api/v2/tickets.json')).toHaveLength(1)
  })
})

describe('retries on failures', () => {
  // Its own user, key and integration: the credential blocked above stays apart, and no other test
  // depends on which key this one uses.
  let fresh: string
  let userKey: string
  beforeAll(async () => {
    userKey = (await stack.createUser()).apiKey
    fresh = (await connectZendesk({ url: stack.url, apiKey: userKey })).integrationId!
  })
  const api = () => client(stack, userKey)

  it('an idempotent GET is retried after a 503', async () => {
    const id = (await api().run('zendesk.create_ticket', fresh, { subject: 's', description: 'd' })).body
      .output.id
    await zendeskControl(stack).clearRequests()
    await zendeskControl(stack).fault({
      status: 503,
      match: { method: 'GET', path: `/api/v2/tickets/${id}.json` },
      times: 1,
    })
    const { status } = await api().run('zendesk.get_ticket', fresh, { ticket_id: id })
    expect(status).toBe(200)
    expect((await requestsTo(`/tickets/${id}.json`)).map((r) => r.status)).toEqual([503, 200])
  })

  it('a POST whose connection dropped is not retried: it may have been processed', async () => {
    await zendeskControl(stack).fault({
      drop: true,
      match: { method: 'POST', path: '/api/v2/tickets' },
      times: 1,
    })
    const { status, body } = await api().run('zendesk.create_ticket', fresh, {
      subject: 'once',
      description: 'd',
    })
    expect(status).toBe(502)
    expect(body.code).toBe('upstream_error')
    expect((await requestsTo('/api/v2/tickets')).filter((r) => r.method === 'POST')).toHaveLength(1)
  })

  it('a POST that got a 500 is not retried and reports upstream_error', async () => {
    await zendeskControl(stack).fault({
      status: 500,
      match: { method: 'POST', path: '/api/v2/tickets' },
      times: 1,
    })
    const { status, body } = await api().run('zendesk.create_ticket', fresh, {
      subject: 'once',
      description: 'd',
    })
    expect(status).toBe(502)
    expect(body).toMatchObject({ code: 'upstream_error', upstream_status: 500 })
    expect((await requestsTo('/api/v2/tickets')).filter((r) => r.method === 'POST')).toHaveLength(1)
  })

  it('a POST refused with 429 is retried: Zendesk did not process it', async () => {
    await zendeskControl(stack).fault({
      rate_limit: { retry_after: 1 },
      match: { method: 'POST', path: '/api/v2/tickets' },
      times: 1,
    })
    const { status } = await api().run('zendesk.create_ticket', fresh, {
      subject: 'after 429',
      description: 'd',
    })
    expect(status).toBe(200)
    expect(
      (await requestsTo('/api/v2/tickets')).filter((r) => r.method === 'POST').map((r) => r.status),
    ).toEqual([429, 201])
  })
})
