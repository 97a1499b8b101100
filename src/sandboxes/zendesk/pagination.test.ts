import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearer, call, startTestSandbox, type TestSandbox } from './test-support.ts'

const TICKETS = 25
let sandbox: TestSandbox
let base: string
let auth: string

beforeAll(async () => {
  sandbox = await startTestSandbox()
  await sandbox.control('/accounts', { body: { subdomain: 'paging', plan: 'high_volume' } })
  await sandbox.control('/accounts/paging/users', {
    body: { name: 'Pat Agent', email: 'pat@paging.test', role: 'agent' },
  })
  await sandbox.control('/accounts/paging/users', {
    body: { name: 'Quinn Admin', email: 'quinn@paging.test', role: 'admin' },
  })
  base = sandbox.base('paging')
  auth = bearer(await sandbox.token('paging', 'pat@paging.test'))
  for (let i = 1; i <= TICKETS; i++) {
    // Spread updated_at so the order by updated_at differs from the order by id.
    await sandbox.control('/clock', { body: { advance_ms: 1000 } })
    await call(`${base}/api/v2/tickets.json`, {
      auth,
      json: { ticket: { subject: `T${i}`, comment: { body: `ticket ${i}` } } },
    })
  }
  await sandbox.control('/clock', { body: { advance_ms: 1000 } })
  await call(`${base}/api/v2/tickets/3`, {
    method: 'PUT',
    auth,
    json: { ticket: { subject: 'T3 touched last' } },
  })
})
afterAll(() => sandbox.close())

async function followNextPage(first: string) {
  const ids: number[] = []
  let url: string | null = first
  let pages = 0
  while (url) {
    const page = await call(url, { auth })
    expect(page.status).toBe(200)
    ids.push(...page.body.tickets.map((t: { id: number }) => t.id))
    expect(page.body.count).toBe(TICKETS)
    url = page.body.next_page
    pages++
  }
  return { ids, pages }
}

async function followLinksNext(first: string, key = 'tickets') {
  const ids: number[] = []
  let url: string | null = first
  let pages = 0
  while (url) {
    const page = await call(url, { auth })
    expect(page.status).toBe(200)
    ids.push(...page.body[key].map((t: { id: number }) => t.id))
    expect(page.body.meta.has_more).toBe(page.body.links.next !== null)
    url = page.body.links.next
    pages++
  }
  return { ids, pages }
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

describe('offset pagination', () => {
  it('follows next_page to the end', async () => {
    const { ids, pages } = await followNextPage(`${base}/api/v2/tickets.json?per_page=10`)
    expect(pages).toBe(3)
    expect(ids).toEqual(range(TICKETS))
  })

  it('builds next_page and previous_page as full URLs on the base the client used', async () => {
    const page = await call(`${base}/api/v2/tickets?page=2&per_page=10&sort_order=desc`, { auth })
    expect(page.body.tickets[0].id).toBe(15)
    const next = new URL(page.body.next_page)
    expect(`${next.origin}${next.pathname}`).toBe(`${base}/api/v2/tickets`)
    expect(next.searchParams.get('page')).toBe('3')
    expect(next.searchParams.get('sort_order')).toBe('desc')
    expect(new URL(page.body.previous_page).searchParams.get('page')).toBe('1')
  })

  it('sorts by updated_at with sort_by', async () => {
    const page = await call(`${base}/api/v2/tickets?sort_by=updated_at&sort_order=desc&per_page=1`, { auth })
    expect(page.body.tickets[0].id).toBe(3)
  })

  it('clamps per_page to 100 and answers 400 beyond page 100', async () => {
    const big = await call(`${base}/api/v2/tickets?per_page=500`, { auth })
    expect(big.body.tickets.length).toBe(TICKETS)
    const deep = await call(`${base}/api/v2/tickets?page=101&per_page=100`, { auth })
    expect(deep.status).toBe(400)
    expect(deep.body.errors[0].code).toBe('InvalidPaginationDepth')
    expect((await call(`${base}/api/v2/tickets?page=100`, { auth })).status).toBe(200)
  })
})

describe('cursor pagination', () => {
  it('follows links.next to the end, each ticket exactly once', async () => {
    const { ids, pages } = await followLinksNext(`${base}/api/v2/tickets.json?page[size]=10`)
    expect(pages).toBe(3)
    expect(ids).toEqual(range(TICKETS))
  })

  it('returns opaque cursors and pages backwards with page[before]', async () => {
    const first = await call(`${base}/api/v2/tickets?page[size]=10`, { auth })
    expect(first.body.meta).toEqual({
      has_more: true,
      after_cursor: expect.any(String),
      before_cursor: expect.any(String),
    })
    expect(first.body.links.prev).toBeNull()
    expect(first.body.meta.after_cursor).not.toMatch(/^\d+$/)
    const second = await call(first.body.links.next, { auth })
    expect(second.body.tickets[0].id).toBe(11)
    const back = await call(second.body.links.prev, { auth })
    expect(back.body.tickets.map((t: { id: number }) => t.id)).toEqual(range(10))
    expect(back.body.meta.has_more).toBe(false)
  })

  it('sorts with sort=-id and sort=updated_at, ignoring sort_by', async () => {
    const descending = await followLinksNext(`${base}/api/v2/tickets?page[size]=7&sort=-id`)
    expect(descending.ids).toEqual(range(TICKETS).reverse())
    const updated = await call(`${base}/api/v2/tickets?page[size]=100&sort=-updated_at&sort_by=id`, { auth })
    expect(updated.body.tickets[0].id).toBe(3)
  })

  it.each([
    ['page[size]=5&sort=created_at', 'InvalidPaginationParameter'],
    ['page[size]=101', 'InvalidPaginationParameter'],
    ['page[size]=0', 'InvalidPaginationParameter'],
    ['page[size]=5&page[after]=garbage!', 'InvalidPaginationParameter'],
    ['page[after]=a&page[before]=b', 'InvalidPaginationParameter'],
  ])('answers 400 for %s', async (query, code) => {
    const response = await call(`${base}/api/v2/tickets?${query}`, { auth })
    expect(response.status).toBe(400)
    expect(response.body.errors[0].code).toBe(code)
  })

  it('paginates users, organizations and comments too', async () => {
    const users = await call(`${base}/api/v2/users?page[size]=1`, { auth })
    expect(users.body.users.length).toBe(1)
    expect(users.body.meta.has_more).toBe(true)
    const organizations = await call(`${base}/api/v2/organizations`, { auth })
    expect(organizations.body).toMatchObject({
      organizations: [],
      count: 0,
      next_page: null,
      previous_page: null,
    })
    for (let i = 0; i < 3; i++) {
      await call(`${base}/api/v2/tickets/1`, {
        method: 'PUT',
        auth,
        json: { ticket: { comment: { body: `c${i}` } } },
      })
    }
    const comments = await call(`${base}/api/v2/tickets/1/comments?per_page=2`, { auth })
    expect(comments.body.count).toBe(4)
    expect(comments.body.comments.length).toBe(2)
    const rest = await call(comments.body.next_page, { auth })
    expect(rest.body.comments.map((c: { body: string }) => c.body)).toEqual(['c1', 'c2'])
  })
})
